/**
 * What the HTTP core tells people and scripts: the retry notices, the --debug lines (key and player
 * data redacted), the messages of exhausted retries, time-outs and unreachable hosts, and how any
 * error answer becomes a problem document. Against undici's MockAgent (an unmatched request fails).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { noticeText } from '../../src/api/client-events.js';
import { ApiClient } from '../../src/api/client.js';
import { headerValue, toProblem } from '../../src/api/attempt-result.js';
import { ApiError, UnavailableError } from '../../src/core/errors.js';

const ORIGIN = 'https://api.example.test';
const KEY = 'svc_live_abcdefghijklmnop1234';
const json = { 'content-type': 'application/json' };

let agent: MockAgent;
let sleeps: number[];
let notices: string[];
let debug: string[];
let clock: number;

function client(extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  return new ApiClient({
    baseUrl: `${ORIGIN}/v1/`,
    apiKey: KEY,
    dispatcher: agent,
    maxRetries: 2,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    now: () => clock,
    random: () => 0.5,
    onEvent: (event) => void (noticeText(event) !== undefined && notices.push(noticeText(event)!)),
    debug: (line) => debug.push(line),
    ...extra,
  });
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  sleeps = [];
  notices = [];
  debug = [];
  clock = 1_700_000_000_000;
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const pool = () => agent.get(ORIGIN);
async function failure(call: Promise<unknown>): Promise<ApiError | UnavailableError> {
  try {
    await call;
  } catch (error) {
    return error as ApiError | UnavailableError;
  }
  throw new Error('the call succeeded');
}

describe('retry notices', () => {
  it('name the call, the wait, the failure and the retry count', async () => {
    pool().intercept({ path: '/v1/me' }).reply(503, { status: 503, code: 'unavailable', detail: 'busy' }, { headers: json });
    pool().intercept({ path: '/v1/me' }).reply(429, { status: 429, code: 'rate_limited', detail: 'slow' }, { headers: { ...json, 'retry-after': '3' } });
    pool().intercept({ path: '/v1/me' }).reply(200, { ok: true }, { headers: json });
    expect(await client().get('/me')).toEqual({ ok: true });
    expect(notices).toEqual(['retrying GET /me in 1.0s (503 unavailable; retry 1 of 2)', 'retrying GET /me in 3.0s (429 rate_limited; retry 2 of 2)']);
    expect(sleeps).toEqual([1000, 3050]);
  });

  it('describe a status without a code, a time-out and a network error', async () => {
    pool().intercept({ path: '/v1/a' }).reply(502, '<html></html>', { headers: { 'content-type': 'text/html' } });
    pool().intercept({ path: '/v1/a' }).reply(200, {}, { headers: json });
    await client().get('/a');
    pool().intercept({ path: '/v1/b' }).reply(200, {}, { headers: json }).delay(200);
    pool().intercept({ path: '/v1/b' }).reply(200, { late: false }, { headers: json });
    expect(await client({ timeoutMs: 20 }).get('/b')).toEqual({ late: false });
    pool().intercept({ path: '/v1/c' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    pool().intercept({ path: '/v1/c' }).reply(200, {}, { headers: json });
    await client().get('/c');
    expect(notices.map((line) => line.replace(/ in [\d.]+s/, ''))).toEqual([
      'retrying GET /a (502 http_502; retry 1 of 2)',
      'retrying GET /b (time-out; retry 1 of 2)',
      'retrying GET /c (ECONNREFUSED; retry 1 of 2)',
    ]);
  });
});

describe('exhausted retries', () => {
  it('an error answer keeps its problem and says how many attempts, with the key to retry safely', async () => {
    pool().intercept({ path: '/v1/personal-links', method: 'POST' }).reply(500, { status: 500, code: 'internal', detail: 'boom' }, { headers: json }).times(3);
    const error = await failure(client().post('/personal-links', {}, { idempotencyKey: 'k-1' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('boom (after 3 attempts)');
    expect((error as ApiError).problem).toEqual({ status: 500, code: 'internal', detail: 'boom' });
    expect(error.hint).toBe('re-run with --idempotency-key k-1 to retry safely');
    expect(error.exitCode).toBe(5);
  });

  it('a failure without an answer says "after 1 attempt" and gives no hint without a key', async () => {
    pool().intercept({ path: '/v1/me' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    const error = await failure(client({ maxRetries: 0 }).get('/me'));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toMatch(/^could not reach https:\/\/api\.example\.test: .+ \(after 1 attempt\)$/);
    expect(error.code).toBe('connection_error');
    expect(error.hint).toBeUndefined();
    expect(sleeps).toEqual([]);
  });

  it('a time-out says how long it waited', async () => {
    pool().intercept({ path: '/v1/me' }).reply(200, {}, { headers: json }).delay(200);
    const error = await failure(client({ maxRetries: 0, timeoutMs: 20 }).get('/me'));
    expect(error.message).toBe(`no response within 0.02s from GET ${ORIGIN}/v1/me (after 1 attempt)`);
    expect(error.code).toBe('timeout');
  });
});

describe('success answers', () => {
  it('an empty 2xx body is null; a JSON body of another type is not parsed', async () => {
    pool().intercept({ path: '/v1/a', method: 'POST' }).reply(204, '');
    const empty = await client().post('/a', { x: 1 });
    expect([empty.status, empty.body, empty.replayed, empty.idempotencyKey]).toEqual([204, null, false, undefined]);
    pool().intercept({ path: '/v1/b' }).reply(200, '{"a":1}', { headers: { 'content-type': 'text/plain' } });
    const error = await failure(client().get('/b'));
    // A 2xx is never retried, whatever its body.
    expect(error.message).toBe('the service answered 200 with a body that is not JSON (text/plain): {"a":1}');
    expect(error.code).toBe('invalid_response');
  });

  it('a JSON body without a content type is read; headers arrive as sent', async () => {
    pool().intercept({ path: '/v1/a' }).reply(200, '{"a":1}', { headers: { 'request-id': 'r1' } });
    const response = await client().request('GET', 'a');
    expect(response.body).toEqual({ a: 1 });
    expect(response.headers['request-id']).toBe('r1');
  });

  it('replayed only when the header says exactly true', async () => {
    pool().intercept({ path: '/v1/a', method: 'POST' }).reply(201, {}, { headers: { ...json, 'idempotent-replayed': 'false' } });
    const response = await client().post('/a', {}, { idempotencyKey: 'k' });
    expect([response.replayed, response.idempotencyKey]).toEqual([false, 'k']);
    expect(notices).toEqual([]);
  });
});

describe('--debug lines', () => {
  it('show the request and the response, with the key and personal data redacted and long bodies cut', async () => {
    const secret = 'whsec_topsecret';
    const long = 'x'.repeat(2_100);
    pool()
      .intercept({ path: '/v1/personal-links?limit=2', method: 'POST' })
      .reply(201, { id: 'l1', note: long, echo: secret }, { headers: { ...json, 'request-id': 'req-9', 'retry-after': '1', 'idempotent-replayed': 'true', 'x-other': 'no' } });
    await client({ secrets: [secret] }).post('/personal-links', { fullName: 'Ada Lovelace', campaignId: 'c1' }, { query: { limit: 2, after: null, status: '' }, idempotencyKey: 'k-9' });
    expect(debug.slice(0, 6)).toEqual([
      `> POST ${ORIGIN}/v1/personal-links?limit=2`,
      '> authorization: Bearer [redacted]',
      expect.stringMatching(/^> user-agent: svc\//),
      '> accept: application/json',
      '> content-type: application/json',
      '> idempotency-key: k-9',
    ]);
    expect(debug[6]).toMatch(/^> \{"fullName":"[^"]*","campaignId":"c1"\}$/);
    expect(debug[6]).not.toContain('Ada');
    expect(debug[7]).toMatch(/^< 201 \(\d+ ms\)$/);
    expect(debug.slice(8, 12)).toEqual(['< content-type: application/json', '< retry-after: 1', '< idempotent-replayed: true', '< request-id: req-9']);
    expect(debug[12]).toMatch(/^< \{"id":"l1","note":"x+…$/);
    expect(debug[12]).toHaveLength(2 + 2_000 + 1);
    expect(debug).toHaveLength(13);
    expect(debug.join('\n')).not.toContain(KEY);
  });

  it('name a time-out and a network error', async () => {
    pool().intercept({ path: '/v1/me' }).reply(200, {}, { headers: json }).delay(200);
    await failure(client({ maxRetries: 0, timeoutMs: 20 }).get('/me'));
    pool().intercept({ path: '/v1/me' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    await failure(client({ maxRetries: 0 }).get('/me'));
    expect(debug.filter((line) => line.startsWith('< '))).toEqual(['< time-out after 20 ms', expect.stringMatching(/^< network error: \S+$/)]);
  });

  it('nothing is written without a debug sink', async () => {
    pool().intercept({ path: '/v1/me' }).reply(200, {}, { headers: json });
    await client({ debug: undefined }).get('/me');
    expect(debug).toEqual([]);
  });
});

describe('interruption', () => {
  it('an aborted signal ends the call before and during an attempt', async () => {
    const aborted = new AbortController();
    aborted.abort();
    expect((await failure(client().get('/me', { signal: aborted.signal }))).exitCode).toBe(130);
    const during = new AbortController();
    pool().intercept({ path: '/v1/me' }).reply(200, {}, { headers: json }).delay(500);
    const call = client().get('/me', { signal: during.signal });
    setImmediate(() => during.abort());
    expect((await failure(call)).exitCode).toBe(130);
  });
});

describe('toProblem', () => {
  it('keeps the service document, filling status, code and detail when missing', () => {
    expect(toProblem(422, { code: 'bad', detail: 'no', errors: [{ field: 'a' }], extra: 1 }, '', 'application/json')).toEqual({
      status: 422,
      code: 'bad',
      detail: 'no',
      errors: [{ field: 'a' }],
      extra: 1,
    });
    expect(toProblem(409, { status: 400, title: 'Conflict' }, '', 'application/json')).toEqual({ status: 400, title: 'Conflict', code: 'http_409', detail: 'Conflict' });
    expect(toProblem(418, { status: '418', errors: 'bad' }, '', 'application/json')).toEqual({ status: 418, code: 'http_418', detail: 'HTTP 418' });
  });

  it('describes an empty or non-JSON body, cut at 120 characters', () => {
    expect(toProblem(500, undefined, '  ', '')).toEqual({ status: 500, code: 'http_500', detail: 'HTTP 500 with an empty body' });
    expect(toProblem(502, [1], `${'a '.repeat(100)}`, 'text/html')).toEqual({ status: 502, code: 'http_502', detail: `HTTP 502 with a non-JSON body (text/html): ${'a '.repeat(60)}…` });
    expect(toProblem(503, null, 'down', '')).toEqual({ status: 503, code: 'http_503', detail: 'HTTP 503 with a non-JSON body (no content type): down' });
  });
});

describe('headerValue and url', () => {
  it('headerValue takes the first of repeated headers', () => {
    expect([headerValue(['a', 'b']), headerValue('c'), headerValue(undefined)]).toEqual(['a', 'c', undefined]);
  });

  it('url joins the base URL and path, leaving out empty query values', () => {
    const c = client();
    expect(c.baseUrl).toBe(`${ORIGIN}/v1`);
    expect(c.url('me')).toBe(`${ORIGIN}/v1/me`);
    expect(c.url('/links', { a: 1, b: false, c: '', d: null, e: undefined, f: 'x y' })).toBe(`${ORIGIN}/v1/links?a=1&b=false&f=x+y`);
  });
});

describe('requests as sent', () => {
  it('a string body goes as it is, an object as JSON; no body, no content type; no key, no Idempotency-Key', async () => {
    const seen: Record<string, unknown>[] = [];
    const record = (options: { headers?: unknown }) => {
      seen.push(options.headers as Record<string, unknown>);
      return { statusCode: 200, data: '{}', responseOptions: { headers: json } };
    };
    pool().intercept({ path: '/v1/raw', method: 'POST', body: 'plain text' }).reply(record);
    pool().intercept({ path: '/v1/obj', method: 'POST', body: '{"a":[1]}' }).reply(record);
    pool().intercept({ path: '/v1/none', method: 'GET' }).reply(record);
    const c = client();
    await c.post('/raw', 'plain text');
    await c.post('/obj', { a: [1] });
    await c.get('/none');
    expect(seen.map((headers) => [headers['content-type'], headers['idempotency-key']])).toEqual([
      ['application/json', undefined],
      ['application/json', undefined],
      [undefined, undefined],
    ]);
  });

  it('trailing slashes of the base URL are dropped', () => {
    expect(client({ baseUrl: `${ORIGIN}/v1///` }).url('/me')).toBe(`${ORIGIN}/v1/me`);
  });
});

describe('a 429 holds every caller of the client', () => {
  it('a call started during the wait waits for the pause too', async () => {
    pool().intercept({ path: '/v1/a' }).reply(429, { status: 429, code: 'rate_limited', detail: 'slow' }, { headers: { ...json, 'retry-after': '3' } });
    pool().intercept({ path: '/v1/a' }).reply(200, {}, { headers: json });
    pool().intercept({ path: '/v1/b' }).reply(200, {}, { headers: json });
    let second: Promise<unknown> | undefined;
    let arrived = false;
    const c = client({
      sleep: async (ms) => {
        sleeps.push(ms);
        // Another caller arrives while the first waits out the 429, before the clock moves.
        if (!arrived) {
          arrived = true;
          second = c.get('/b');
        }
        clock += ms;
      },
    });
    await c.get('/a');
    await second;
    expect(sleeps).toEqual([3050, 3050]);
  });
});

describe('notices and debug sinks are optional', () => {
  it('a client without them retries and replays quietly; setOnEvent replaces the sink', async () => {
    pool().intercept({ path: '/v1/a', method: 'POST' }).reply(503, { status: 503, code: 'unavailable', detail: 'busy' }, { headers: json });
    pool().intercept({ path: '/v1/a', method: 'POST' }).reply(201, {}, { headers: { ...json, 'idempotent-replayed': 'true' } });
    const quiet = client({ onEvent: undefined, debug: undefined });
    expect((await quiet.post('/a', {}, { idempotencyKey: 'k' })).replayed).toBe(true);
    const lines: string[] = [];
    quiet.setOnEvent((event) => void (noticeText(event) !== undefined && lines.push(noticeText(event)!)));
    pool().intercept({ path: '/v1/b', method: 'POST' }).reply(201, {}, { headers: { ...json, 'idempotent-replayed': 'true' } });
    await quiet.post('/b', {}, { idempotencyKey: 'k2' });
    expect(lines).toEqual(['replayed: the service returned the stored response for Idempotency-Key k2; nothing ran twice']);
    expect(notices).toEqual([]);
  });

  it('debug shows only the response headers that came, and scrubs the key and the given secrets', async () => {
    const secret = 'whsec_topsecret';
    pool().intercept({ path: '/v1/me' }).reply(200, { key: KEY, secret }, { headers: json });
    await client({ secrets: [secret] }).get('/me');
    expect(debug.slice(-2)).toEqual(['< content-type: application/json', expect.stringMatching(/^< \{"key":"[^"]*","secret":"[^"]*"\}$/)]);
    expect(debug.join('\n')).not.toContain(KEY);
    expect(debug.join('\n')).not.toContain(secret);
  });
});

describe('closing', () => {
  it('leaves a dispatcher it was given open, and closes nothing before the first call', async () => {
    await client().close();
    await new ApiClient({ baseUrl: `${ORIGIN}/v1`, apiKey: KEY }).close();
    pool().intercept({ path: '/v1/me' }).reply(200, { still: 'open' }, { headers: json });
    expect(await client().get('/me')).toEqual({ still: 'open' });
  });
});

describe('snippets of bodies', () => {
  it('white space runs become one space, the ends are trimmed, and only a longer body is cut', () => {
    expect(toProblem(500, undefined, ' a \n\t b ', 'text/plain').detail).toBe('HTTP 500 with a non-JSON body (text/plain): a b');
    expect(toProblem(500, undefined, 'x'.repeat(120), 'text/plain').detail).toBe(`HTTP 500 with a non-JSON body (text/plain): ${'x'.repeat(120)}`);
  });

  it('a 3xx answer is not a success', async () => {
    pool().intercept({ path: '/v1/me' }).reply(300, { status: 300, code: 'multiple', detail: 'choose' }, { headers: json });
    const error = await failure(client().get('/me'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('choose');
  });
});
