/**
 * `webhooks replay`: saved deliveries (the `webhooks listen --save-dir` format) go again to a receiver
 * that records the raw bytes: exact body bytes, Content-Type and Svc-Event-Id, a fresh signature that
 * verifies with the secret (checked here with node:crypto, not svc's code) at the current time, in
 * receivedAt order, one at a time.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeLater, tempDir } from '../helpers/cleanup.js';
import { runInProcess } from '../helpers/run.js';

const SECRET = 'whsec_replay_test_secret_0123456789';
let url: string;
let received: { headers: IncomingHttpHeaders; body: Buffer; at: number }[];
let answer: (index: number) => { status: number; body: string };
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  const server = createServer((request, response) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = received.push({ headers: request.headers, body: Buffer.concat(chunks), at: Math.floor(Date.now() / 1000) }) - 1;
      const { status, body } = answer(index);
      // A short pause: a second delivery sent before this answer would show as two in flight.
      setTimeout(() => {
        inFlight--;
        response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeLater(() => new Promise<void>((resolve) => server.close(() => resolve())));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
  received = [];
  maxInFlight = 0;
  answer = () => ({ status: 200, body: '{"received":true}' });
  dir = tempDir();
  env = { SVC_CONFIG_DIR: tempDir(), SVC_WEBHOOK_SECRET: SECRET };
});

/** A delivery file exactly as `webhooks listen --save-dir` writes it. */
function save(name: string, delivery: { receivedAt: string; id: string; body: Buffer; contentType?: string; signature?: string }): string {
  const text = delivery.body.toString('utf8');
  const record = {
    receivedAt: delivery.receivedAt,
    headers: {
      host: '127.0.0.1:4242',
      'content-type': delivery.contentType ?? 'application/json',
      'svc-event-id': delivery.id,
      'svc-signature': delivery.signature ?? 't=1763719200,v1=00',
      'content-length': String(delivery.body.length),
    },
    body: text,
    ...(Buffer.from(text, 'utf8').equals(delivery.body) ? {} : { bodyBase64: delivery.body.toString('base64') }),
    verdict: { valid: true, status: 200 },
  };
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

const signed = (t: number, body: Buffer) => `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.`).update(body).digest('hex')}`;

// Bodies a re-serialisation would change: key order, spacing, escapes, a trailing newline, non-ASCII.
const BODY_A = Buffer.from('{"id":"evt_a","type":"ping",  "data":{}, "note":"caf\\u00e9 ü\\n"}\n');
const BODY_B = Buffer.from('{ "type": "order.cancelled", "id": "evt_b", "data": {"coinPrice": "10.50"} }');
// Not UTF-8: kept by listen as bodyBase64.
const BODY_C = Buffer.concat([Buffer.from('{"id":"evt_c","raw":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);

describe('webhooks replay', () => {
  it('sends the exact bytes, Content-Type and Svc-Event-Id, freshly signed, in receivedAt order, one at a time', async () => {
    // File names in the opposite order of receivedAt: the order comes from receivedAt.
    const fileC = save('a-evt_c.json', { receivedAt: '2026-11-21T10:00:03.000Z', id: 'evt_c', body: BODY_C });
    const fileB = save('b-evt_b.json', { receivedAt: '2026-11-21T10:00:02.000Z', id: 'evt_b', body: BODY_B, contentType: 'application/json; charset=utf-8' });
    const fileA = save('c-evt_a.json', { receivedAt: '2026-11-21T10:00:01.000Z', id: 'evt_a', body: BODY_A });
    writeFileSync(join(dir, 'notes.txt'), 'not a delivery');
    answer = (index) => ({ status: 200, body: `{"received":true,"n":${index}}` });
    const result = await runInProcess(['webhooks', 'replay', dir, '--to', url], env);
    expect(result).toEqual({
      exitCode: 0,
      stdout: [
        { file: fileA, eventId: 'evt_a', receivedAt: '2026-11-21T10:00:01.000Z', status: 200, ok: true, body: '{"received":true,"n":0}' },
        { file: fileB, eventId: 'evt_b', receivedAt: '2026-11-21T10:00:02.000Z', status: 200, ok: true, body: '{"received":true,"n":1}' },
        { file: fileC, eventId: 'evt_c', receivedAt: '2026-11-21T10:00:03.000Z', status: 200, ok: true, body: '{"received":true,"n":2}' },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
      stderr: `3 of 3 deliveries answered 2xx by ${url}\n`,
    });
    expect(maxInFlight).toBe(1);
    expect(received.map((r) => r.body)).toEqual([BODY_A, BODY_B, BODY_C]);
    expect(received.map((r) => [r.headers['content-type'], r.headers['svc-event-id']])).toEqual([
      ['application/json', 'evt_a'],
      ['application/json; charset=utf-8', 'evt_b'],
      ['application/json', 'evt_c'],
    ]);
    for (const delivery of received) {
      const t = Number(/^t=(\d+),/.exec(String(delivery.headers['svc-signature']))?.[1]);
      expect(Math.abs(t - delivery.at)).toBeLessThanOrEqual(2);
      expect(delivery.headers['svc-signature']).toBe(signed(t, delivery.body));
    }
  });

  it('--keep-signature sends the saved header as it was', async () => {
    const original = signed(1763719200, BODY_B);
    const file = save('evt_b.json', { receivedAt: '2026-11-21T10:00:02.000Z', id: 'evt_b', body: BODY_B, signature: original });
    const result = await runInProcess(['webhooks', 'replay', file, '--to', url, '--keep-signature'], { SVC_CONFIG_DIR: tempDir() });
    expect(result.exitCode).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0].headers['svc-signature']).toBe(original);
    expect(received[0].body).toEqual(BODY_B);
  });

  it('a receiver that does not answer 2xx: its status and answer are shown, exit 1 after trying every delivery', async () => {
    save('1.json', { receivedAt: '2026-11-21T10:00:01.000Z', id: 'evt_1', body: BODY_A });
    save('2.json', { receivedAt: '2026-11-21T10:00:02.000Z', id: 'evt_2', body: BODY_B });
    answer = (index) => (index === 0 ? { status: 400, body: `{"error":"${'x'.repeat(300)}"}` } : { status: 204, body: '' });
    const result = await runInProcess(['webhooks', 'replay', dir, '--to', url], env);
    expect(result.exitCode).toBe(1);
    const lines = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.eventId, line.status, line.ok, line.body])).toEqual([
      ['evt_1', 400, false, `{"error":"${'x'.repeat(190)}…`],
      ['evt_2', 204, true, ''],
    ]);
    expect(result.stderr).toBe(`1 of 2 deliveries answered 2xx by ${url}\n`);
  });

  it('-o table: one line per delivery, the answer made safe for a terminal', async () => {
    save('1.json', { receivedAt: '2026-11-21T10:00:01.000Z', id: 'evt_1', body: BODY_A });
    answer = () => ({ status: 200, body: 'ok\u001b]0;title\u0007' });
    const result = await runInProcess(['webhooks', 'replay', dir, '--to', url, '-o', 'table'], env);
    expect(result).toEqual({ exitCode: 0, stdout: '✓ evt_1  200  ok\\x1b]0;title\\x07\n', stderr: `1 of 1 delivery answered 2xx by ${url}\n` });
  });

  it('refuses before sending anything: plain http to another host, a file that is not a saved delivery, no secret', async () => {
    const good = save('1.json', { receivedAt: '2026-11-21T10:00:01.000Z', id: 'evt_1', body: BODY_A });
    expect(await runInProcess(['webhooks', 'replay', good, '--to', 'http://192.0.2.1/hooks'], env)).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'error: usage_error: --to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for 192.0.2.1\n',
    });
    mkdirSync(join(dir, 'sub'));
    const bad = join(dir, 'sub', 'broken.json');
    writeFileSync(bad, '{"receivedAt": "yesterday", "headers": {}, "body": ""}');
    expect(await runInProcess(['webhooks', 'replay', good, bad, '--to', url], env)).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `error: usage_error: ${bad}: not a delivery saved by webhooks listen --save-dir (no receivedAt time)\n`,
    });
    const noSecret = await runInProcess(['webhooks', 'replay', good, '--to', url], { SVC_CONFIG_DIR: tempDir() });
    expect(noSecret.exitCode).toBe(2);
    expect(noSecret.stderr).toMatch(/^error: usage_error: no webhook secret for profile default/);
    expect(received).toEqual([]);
  });
});
