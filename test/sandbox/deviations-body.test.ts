/**
 * Request bodies the spec bounds: over 10 MB is 413 as a problem document every time (the client
 * finishes sending and reads it, no reset connection), and a deeply nested body is a 400 validation
 * problem, never a 500.
 */
import http from 'node:http';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const OVER_10_MB = 10 * 1024 * 1024 + 1024;

interface RawReply {
  status: number;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

/**
 * One POST on its own connection with node:http, writing the whole body. It settles when the
 * connection has closed: any socket error on the way (EPIPE, ECONNRESET), even one after the answer
 * arrived, rejects, as it fails clients that send the whole body before reading the answer.
 */
function rawPost(path: string, body: Buffer | Buffer[], headers: Record<string, string | number>, agent: http.Agent | false = false): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let reply: RawReply | undefined;
    let failure: Error | undefined;
    let sent = false;
    const request = http.request(`${sb.info.baseUrl}${path}`, {
      method: 'POST',
      agent,
      headers: { Authorization: `Bearer ${sb.apiKey('full')}`, 'Content-Type': 'application/json', ...headers },
    });
    request.on('error', (err) => (failure ??= err));
    request.on('finish', () => (sent = true));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (err) => (failure ??= err));
      response.on('end', () => {
        try {
          reply = { status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
        } catch (err) {
          failure ??= err as Error;
        }
      });
    });
    request.on('close', () => {
      // A moment for an error reported just after the close.
      setImmediate(() => {
        if (failure !== undefined) reject(failure);
        else if (!sent) reject(new Error('the connection closed before the body was sent'));
        else if (reply === undefined) reject(new Error('no answer'));
        else resolve(reply);
      });
    });
    if (Array.isArray(body)) {
      // Chunked: written piece by piece, each write waiting for the socket to take the last.
      const write = (index: number): void => {
        if (index === body.length) {
          request.end();
          return;
        }
        if (request.write(body[index])) write(index + 1);
        else request.once('drain', () => write(index + 1));
      };
      write(0);
    } else {
      request.end(body);
    }
  });
}

function expect413(reply: RawReply): void {
  expect(reply.status).toBe(413);
  expect(reply.contentType).toBe('application/problem+json');
  expect(reply.body).toEqual({
    type: expect.any(String),
    title: 'Payload too large',
    status: 413,
    code: 'payload_too_large',
    detail: 'The request body is larger than 10 MB.',
  });
}

describe('413 for a body over 10 MB, every time', () => {
  test('ten sequential POSTs with Content-Length (node:http) each get the 413 problem document', async () => {
    const before = sb.sandbox.state.links.length;
    const big = Buffer.alloc(OVER_10_MB, 0x20);
    big.write('{"fullName":"x"', 0);
    for (let i = 0; i < 10; i++) expect413(await rawPost('/personal-links', big, { 'Content-Length': big.length, 'Idempotency-Key': `big-cl-${i}` }));
    expect(sb.sandbox.state.links.length).toBe(before);
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('on one keep-alive connection (node:http), whole or written piece by piece, each gets the 413', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = Buffer.alloc(OVER_10_MB, 0x20);
      for (let i = 0; i < 5; i++) expect413(await rawPost('/personal-links', big, { 'Content-Length': big.length, 'Idempotency-Key': `big-ka-${i}` }, agent));
      const pieces = Array.from({ length: 64 }, () => Buffer.alloc(256 * 1024, 0x20)); // 16 MB
      const total = pieces.length * pieces[0].length;
      for (let i = 0; i < 3; i++) expect413(await rawPost('/personal-links', pieces, { 'Content-Length': total, 'Idempotency-Key': `big-ka-pieces-${i}` }, agent));
      for (let i = 0; i < 3; i++) expect413(await rawPost('/personal-links', pieces, { 'Idempotency-Key': `big-ka-chunked-${i}` }, agent));
    } finally {
      agent.destroy();
    }
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('ten sequential POSTs with fetch (undici, keep-alive pool) each get the 413 problem document', async () => {
    // A pool of the test's own: each POST after the first goes out on the connection the one before
    // it left open, and none inherits a connection that idled through the tests before.
    const pool = new Agent({ connections: 1 });
    try {
      const big = Buffer.alloc(OVER_10_MB, 0x20);
      for (let i = 0; i < 10; i++) {
        const res = await undiciFetch(`${sb.info.baseUrl}/reward-store-orders`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${sb.apiKey('full')}`, 'Content-Type': 'application/json', 'Idempotency-Key': `big-fetch-${i}` },
          body: big,
          dispatcher: pool,
        });
        expect(res.status).toBe(413);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(await res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
      }
    } finally {
      await pool.close();
    }
    expect(sb.sandbox.state.orders.length).toBe(0);
  });

  test('ten sequential streamed uploads with fetch each get the 413 problem document', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    for (let i = 0; i < 10; i++) {
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 12) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await fetch(`${sb.info.baseUrl}/personal-links`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sb.apiKey('full')}`, 'Content-Type': 'application/json', 'Idempotency-Key': `big-stream-${i}` },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    }
  });

  test('ten sequential chunked uploads past 10 MB each get the 413 problem document', async () => {
    const before = sb.sandbox.state.links.length;
    const piece = Buffer.alloc(256 * 1024, 0x20);
    const pieces = Array.from({ length: 96 }, () => piece); // 24 MB
    for (let i = 0; i < 5; i++) expect413(await rawPost('/personal-links', pieces, { 'Idempotency-Key': `big-chunked-${i}` }));
    expect(sb.sandbox.state.links.length).toBe(before);
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });
});

describe('deeply nested JSON is 400 invalid_request, never 500', () => {
  const depth = 40 * 1024;
  const nestedArrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const nestedObjects = `${'{"a":'.repeat(depth / 5)}1${'}'.repeat(depth / 5)}`;
  const expectedBody = {
    type: expect.any(String),
    title: 'Invalid request',
    status: 400,
    code: 'invalid_request',
    detail: expect.any(String),
    errors: [{ field: 'body', code: 'invalid', message: 'The request body nests deeper than 64 levels.' }],
  };

  test('POST /personal-links with 40 KB of nesting in an ignored field', async () => {
    const campaignId = (await sb.api('GET', '/campaigns')).body.items[0].id;
    for (const [i, nested] of [nestedArrays, nestedObjects].entries()) {
      const reply = await sb.api('POST', '/personal-links', {
        rawBody: `{"campaignId":"${campaignId}","fullName":"Deep","ignored":${nested}}`,
        headers: { 'Content-Type': 'application/json' },
        idempotencyKey: `deep-link-${i}`,
      });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toBe('application/problem+json');
      expect(reply.body).toEqual(expectedBody);
    }
  });

  test('POST /reward-store-orders with 40 KB of nesting in an ignored field', async () => {
    for (const [i, nested] of [nestedArrays, nestedObjects].entries()) {
      const reply = await sb.api('POST', '/reward-store-orders', {
        rawBody: `{"storeId":"00000000-0000-4000-8000-000000000000","ignored":${nested}}`,
        headers: { 'Content-Type': 'application/json' },
        idempotencyKey: `deep-order-${i}`,
      });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toBe('application/problem+json');
      expect(reply.body).toEqual(expectedBody);
    }
  });

  test('nesting of 64 levels is still read (and the request goes on to its own checks)', async () => {
    const campaigns: { id: string; brandIds: string[] }[] = (await sb.api('GET', '/campaigns')).body.items;
    const campaignId = campaigns.find((c) => c.brandIds.length === 1)?.id;
    const ignored = `${'['.repeat(63)}"a \\" [ { "${']'.repeat(63)}`;
    const reply = await sb.api('POST', '/personal-links', {
      rawBody: `{"campaignId":"${campaignId}","fullName":"Not so deep","ignored":${ignored}}`,
      headers: { 'Content-Type': 'application/json' },
      idempotencyKey: 'deep-ok',
    });
    expect(reply.status).toBe(201);
    // the same body again is a replay: the comparison canonicalises it
    const again = await sb.api('POST', '/personal-links', {
      rawBody: `{"fullName":"Not so deep","ignored":${ignored},"campaignId":"${campaignId}"}`,
      headers: { 'Content-Type': 'application/json' },
      idempotencyKey: 'deep-ok',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(reply.body);
  });
});
