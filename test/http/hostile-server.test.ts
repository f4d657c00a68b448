/**
 * The HTTP core against a hostile server (the strict double answering by hand): huge and endless
 * bodies, a body that drips, invalid JSON, escape sequences, cursor loops. Each attack must cost
 * bounded time and memory, and be asserted so.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/body.js';
import { ApiClient } from '../../src/api/client.js';
import { pages } from '../../src/api/paginate.js';
import { ExitCode, SvcError, errorLines } from '../../src/core/errors.js';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';

let api: ApiDouble;
doubleEachTest((double) => {
  api = double;
});

const client = (extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) =>
  new ApiClient({ baseUrl: api.baseUrl, apiKey: 'svc_live_test0000000000', sleep: async () => undefined, maxRetries: 4, ...extra });

/** A body that never ends: 64 KiB chunks as fast as the client reads them, until it hangs up. */
function endless(status = 200, headers: Record<string, string> = {}) {
  return (response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    response.write('{"detail":"');
    const pump = () => {
      while (!response.destroyed && !response.writableEnded) {
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
    };
    response.on('error', () => undefined);
    pump();
  };
}

/** One byte every `everyMs`, never finished: a body that drips within any per-chunk time-out. */
function drip(everyMs: number) {
  return (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"items":[');
    const timer = setInterval(() => {
      if (response.destroyed) clearInterval(timer);
      else response.write(' ');
    }, everyMs);
    response.on('close', () => clearInterval(timer));
  };
}

/** Runs `attack` while sampling the heap; returns the error, the time taken and the peak heap growth. */
async function measured(attack: () => Promise<unknown>): Promise<{ error: unknown; ms: number; heapGrowth: number }> {
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const started = performance.now();
  const error = await attack().then(
    () => undefined,
    (e: unknown) => e,
  );
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { error, ms, heapGrowth: peak - before };
}

const MiB = 1024 * 1024;

describe('hostile server: answers too large to read', () => {
  it('a 256 MiB answer to GET /me (declared) is refused after its headers: response_too_large, exit 5, one request', async () => {
    api.on('GET /me', { respond: endless(200, { 'content-length': String(256 * MiB) }) });
    const { error, ms, heapGrowth } = await measured(() => client().get('/me'));
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('response_too_large');
    expect((error as SvcError).exitCode).toBe(ExitCode.unavailable);
    expect(errorLines(error as SvcError)).toEqual([`error: response_too_large: GET ${api.baseUrl}/me: the answer is larger than 32 MiB; svc stopped reading it (not retried)`]);
    expect(api.count('GET /me')).toBe(1);
    expect(ms).toBeLessThan(2_000);
    expect(heapGrowth).toBeLessThan(64 * MiB);
  });

  it('an endless answer without a length is read up to 32 MiB, then dropped: not retried, memory and time bounded', async () => {
    api.on('GET /me', { respond: endless() });
    const { error, ms, heapGrowth } = await measured(() => client().get('/me'));
    expect((error as SvcError).code).toBe('response_too_large');
    expect(api.count('GET /me')).toBe(1);
    expect(ms).toBeLessThan(10_000);
    // The 32 MiB read, never the 1.6 GiB of reading a 256 MiB answer whole.
    expect(heapGrowth).toBeLessThan(3 * (MAX_RESPONSE_BYTES / MiB) * MiB);
  });

  it('an endless error body (a 503 that never ends) is not retried either', async () => {
    api.on('GET /campaigns', { respond: endless(503, { 'content-type': 'application/problem+json' }) });
    const { error } = await measured(() => client().get('/campaigns'));
    expect((error as SvcError).code).toBe('response_too_large');
    expect(api.count('GET /campaigns')).toBe(1);
  });

  it('an answer of exactly 32 MiB is still read', async () => {
    const text = `{"items":[],"pad":"${'x'.repeat(MAX_RESPONSE_BYTES - 21)}"}`;
    expect(Buffer.byteLength(text)).toBe(MAX_RESPONSE_BYTES);
    api.on('GET /campaigns', { respond: (response) => response.writeHead(200, { 'content-type': 'application/json' }).end(text) });
    const body = await client().get<{ pad: string }>('/campaigns');
    expect(body.pad.length).toBe(MAX_RESPONSE_BYTES - 21);
  });
});

describe('hostile server: slow and broken bodies', () => {
  it('a body that drips a byte every 20 ms never ends the call late: each attempt stops at the time-out', async () => {
    api.on('GET /me', { respond: drip(20) });
    const retried: string[] = [];
    const dripping = client({ timeoutMs: 1_000, maxRetries: 1, onEvent: (event) => event.type === 'retry' && retried.push(event.outcome.kind) });
    const { error, ms } = await measured(() => dripping.get('/me'));
    expect((error as SvcError).code).toBe('timeout');
    expect((error as SvcError).exitCode).toBe(ExitCode.unavailable);
    // Two attempts of 1 s each: the first timed out and was retried, the second ended the call.
    // The attempts are counted by the client: on a loaded machine the second can time out before
    // the double (in this process) has read its request.
    expect(retried).toEqual(['timeout']);
    expect(api.count('GET /me')).toBeGreaterThanOrEqual(1);
    expect(ms).toBeGreaterThanOrEqual(2_000);
    // The drip never ends: a call that waited for the body would never end.
    expect(ms).toBeLessThan(10_000);
  });

  it('invalid JSON with a JSON content type is an invalid_response, never a crash', async () => {
    api.on('GET /me', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"key": {"name": "x"' });
    const { error } = await measured(() => client({ maxRetries: 0 }).get('/me'));
    expect((error as SvcError).code).toBe('invalid_response');
    expect(errorLines(error as SvcError)).toEqual(['error: invalid_response: the service answered 200 with a body that is not JSON (application/json): {"key": {"name": "x"']);
  });

  it('escape sequences in every member of a problem document reach the error lines as visible escapes', async () => {
    const evil = '\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e';
    const visible = String.raw`\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e`;
    api.on('GET /me', { status: 400, body: { status: 400, code: `bad${evil}`, title: 't', type: 'about:blank', detail: `detail${evil}`, errors: [{ field: `f${evil}`, code: `c${evil}`, message: `m${evil}` }] } });
    const { error } = await measured(() => client().get('/me'));
    expect(errorLines(error as SvcError)).toEqual([`error: bad${visible}: detail${visible}`, `  f${visible}: c${visible}: m${visible}`]);
  });
});

describe('hostile server: cursor loops', () => {
  const items = (name: string) => ({ items: [{ id: name }] });
  it('A→B→A stops at the repeat with cursor_loop (exit 5), after exactly three requests, before the repeated page is shown', async () => {
    api
      .on('GET /campaigns?limit=100', { body: { ...items('1'), nextCursor: 'A' } })
      .on('GET /campaigns?limit=100&after=A', { body: { ...items('2'), nextCursor: 'B' } })
      .on('GET /campaigns?limit=100&after=B', { body: { ...items('3'), nextCursor: 'A' } });
    const seen: string[] = [];
    const { error, ms } = await measured(async () => {
      for await (const page of pages<{ id: string }>(client(), '/campaigns', { limit: 100, all: true })) seen.push(...page.items.map((item) => item.id));
    });
    expect((error as SvcError).code).toBe('cursor_loop');
    expect((error as SvcError).exitCode).toBe(ExitCode.unavailable);
    expect((error as SvcError).message).toBe('GET /campaigns handed back cursor "A", which this walk already followed (page 3); stopping, the walk would never end');
    expect(seen).toEqual(['1', '2']);
    expect(api.requests).toHaveLength(3);
    expect(ms).toBeLessThan(2_000);
  });

  it('a server that mints a new cursor for the same page each time stops at the second page', async () => {
    api.on('GET /campaigns?limit=100', { body: { ...items('1'), nextCursor: 'c1' } }).on('GET /campaigns?limit=100&after=c1', { body: { ...items('1'), nextCursor: 'c2' } });
    const seen: string[] = [];
    const { error } = await measured(async () => {
      for await (const page of pages<{ id: string }>(client(), '/campaigns', { limit: 100, all: true })) seen.push(...page.items.map((item) => item.id));
    });
    expect((error as SvcError).message).toBe('GET /campaigns returned the same page twice in a row (page 2); stopping, the walk would never end');
    expect(seen).toEqual(['1']);
  });
});
