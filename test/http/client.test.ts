import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { noticeText } from '../../src/api/client-events.js';
import { ApiClient } from '../../src/api/client.js';
import { pages } from '../../src/api/paginate.js';
import { ApiError, ExitCode, UnavailableError } from '../../src/core/errors.js';

const ORIGIN = 'https://api.example.test';
const KEY = 'svc_live_abcdefghijklmnop1234';

let agent: MockAgent;
let sleeps: number[];
/** a fake clock that the fake sleep moves on, so waits take no real time */
let clock: number;
let notices: string[];
let debug: string[];

const retryWaits = () => sleeps;

function client(extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  return new ApiClient({
    baseUrl: `${ORIGIN}/v1`,
    apiKey: KEY,
    dispatcher: agent,
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
  clock = 1_700_000_000_000;
  notices = [];
  debug = [];
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const json = { 'content-type': 'application/json' };
const problemJson = { 'content-type': 'application/problem+json' };

describe('ApiClient', () => {
  it('sends auth, user agent and accept headers', async () => {
    agent
      .get(ORIGIN)
      .intercept({
        path: '/v1/me',
        method: 'GET',
        headers: (headers) =>
          headers.authorization === `Bearer ${KEY}` && /^svc\/\S+ node\/\d+/.test(headers['user-agent']) && headers.accept === 'application/json',
      })
      .reply(200, { key: { name: 'full' }, extra: { kept: true } }, { headers: json });
    const me = await client().get<Record<string, unknown>>('/me');
    expect(me).toEqual({ key: { name: 'full' }, extra: { kept: true } });
  });

  it('keeps the same Idempotency-Key across retries of one POST and reports a replay', async () => {
    const seen: string[] = [];
    const pool = agent.get(ORIGIN);
    const record = (headers: Record<string, string>) => {
      seen.push(headers['idempotency-key']);
      return true;
    };
    pool.intercept({ path: '/v1/personal-links', method: 'POST', headers: record }).reply(503, '<html>busy</html>', { headers: { 'content-type': 'text/html' } });
    pool.intercept({ path: '/v1/personal-links', method: 'POST', headers: record }).replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    pool
      .intercept({ path: '/v1/personal-links', method: 'POST', headers: record })
      .reply(201, { id: 'l1' }, { headers: { ...json, 'idempotent-replayed': 'true' } });
    const response = await client().post('/personal-links', { fullName: 'A' }, { idempotencyKey: 'key-1' });
    expect(response.body).toEqual({ id: 'l1' });
    expect(response.replayed).toBe(true);
    // The matcher may look at a request more than once; every look must see the same key.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen)).toEqual(new Set(['key-1']));
    expect(retryWaits()).toEqual([1000, 2000]);
    expect(notices.some((line) => line.includes('replayed') && line.includes('key-1'))).toBe(true);
  });

  it('waits Retry-After on 429', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(429, { status: 429, code: 'rate_limited', detail: 'slow down' }, { headers: { ...problemJson, 'retry-after': '3' } });
    pool.intercept({ path: '/v1/me' }).reply(200, { ok: true }, { headers: json });
    await client().get('/me');
    expect(sleeps).toContain(3000 + 50);
  });

  it('retries 409 idempotency_request_in_progress with the same key', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/v1/reward-store-orders', method: 'POST', headers: { 'idempotency-key': 'k' } })
      .reply(409, { status: 409, code: 'idempotency_request_in_progress', detail: 'running' }, { headers: problemJson });
    pool.intercept({ path: '/v1/reward-store-orders', method: 'POST', headers: { 'idempotency-key': 'k' } }).reply(201, { id: 'o1' }, { headers: json });
    const response = await client().post('/reward-store-orders', {}, { idempotencyKey: 'k' });
    expect(response.status).toBe(201);
  });

  it('never retries other 4xx and keeps the problem members', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/reward-store-orders', method: 'POST' })
      .reply(409, { type: 'about:blank', title: 'Price changed', status: 409, code: 'price_changed', detail: 'now 1500', coinPrice: '1500', future: 1 }, { headers: problemJson });
    const error = await client()
      .post('/reward-store-orders', {}, { idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.code).toBe('price_changed');
    expect(apiError.problem.coinPrice).toBe('1500');
    expect(apiError.problem.future).toBe(1);
    expect(apiError.exitCode).toBe(ExitCode.refused);
    expect(retryWaits()).toEqual([]);
  });

  it('maps statuses to exit codes: 404 → 3, 401/403 → 4, unknown 4xx → 1', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/a' }).reply(404, { status: 404, code: 'not_found', detail: 'no' }, { headers: problemJson });
    pool.intercept({ path: '/v1/b' }).reply(401, { status: 401, code: 'invalid_api_key', detail: 'no' }, { headers: problemJson });
    pool.intercept({ path: '/v1/c' }).reply(418, { status: 418, code: 'brand_new_code', detail: 'teapot' }, { headers: problemJson });
    const c = client();
    expect(((await c.get('/a').catch((e) => e)) as ApiError).exitCode).toBe(3);
    expect(((await c.get('/b').catch((e) => e)) as ApiError).exitCode).toBe(4);
    const unknown = (await c.get('/c').catch((e) => e)) as ApiError;
    expect(unknown.exitCode).toBe(1);
    expect(unknown.code).toBe('brand_new_code');
  });

  it('gives up after --max-retries with exit 5, naming the key to retry with', async () => {
    const pool = agent.get(ORIGIN);
    for (let i = 0; i < 3; i++) {
      pool.intercept({ path: '/v1/personal-links', method: 'POST' }).reply(502, '<html><body>Bad Gateway</body></html>', { headers: { 'content-type': 'text/html' } });
    }
    const error = (await client({ maxRetries: 2 })
      .post('/personal-links', {}, { idempotencyKey: 'k-9' })
      .catch((e) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.code).toBe('http_502');
    expect(error.message).toContain('non-JSON body');
    expect(error.message).toContain('(after 3 attempts)');
    expect(error.hint).toContain('--idempotency-key k-9');
    // The problem document stays as the service sent it; the count is only in the message.
    expect(error.problem.detail).not.toContain('after');
    expect(retryWaits()).toHaveLength(2);
  });

  it('treats a 2xx with a non-JSON body as a clear error, not a crash', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/me' }).reply(200, 'hello', { headers: { 'content-type': 'text/plain' } });
    const error = (await client().get('/me').catch((e) => e)) as UnavailableError;
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('not JSON');
  });

  it('a 2xx with truncated JSON is an error too', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/me' }).reply(200, '{"key":', { headers: json });
    const error = (await client().get('/me').catch((e) => e)) as UnavailableError;
    expect(error.code).toBe('invalid_response');
  });

  it('a slow attempt times out and is retried with the same key', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/personal-links', method: 'POST', headers: { 'idempotency-key': 'slow' } }).reply(201, { id: 'late' }, { headers: json }).delay(500);
    pool.intercept({ path: '/v1/personal-links', method: 'POST', headers: { 'idempotency-key': 'slow' } }).reply(201, { id: 'l2' }, { headers: json });
    const response = await client({ timeoutMs: 100 }).post('/personal-links', {}, { idempotencyKey: 'slow' });
    expect(response.body).toEqual({ id: 'l2' });
    expect(notices.some((line) => line.includes('time-out'))).toBe(true);
  });

  it('a call marked retry: false runs once, whatever the failure', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/webhooks:test', method: 'POST' }).reply(503, { status: 503, code: 'unavailable', detail: 'busy' }, { headers: problemJson });
    const error = (await client()
      .request('POST', '/webhooks:test', { body: {}, retry: false })
      .catch((e) => e)) as ApiError;
    expect(error.status).toBe(503);
    expect(sleeps).toEqual([]);
  });

  it('a fresh idempotency key is a UUID, different for each call', () => {
    const first = ApiClient.newIdempotencyKey();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ApiClient.newIdempotencyKey()).not.toBe(first);
  });

  it('redacts the key from debug output', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/me' }).reply(200, { echo: KEY }, { headers: json });
    await client().get('/me');
    const text = debug.join('\n');
    expect(text).toContain('> GET');
    expect(text).toContain('Bearer [redacted]');
    expect(text).not.toContain(KEY);
  });
});

describe('pagination', () => {
  it('follows nextCursor and stops on null', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/personal-links?limit=2' }).reply(200, { items: [1, 2], nextCursor: 'c1' }, { headers: json });
    pool.intercept({ path: '/v1/personal-links?limit=2&after=c1' }).reply(200, { items: [3], nextCursor: null }, { headers: json });
    const items: unknown[] = [];
    for await (const page of pages(client(), '/personal-links', { limit: 2, all: true })) items.push(...page.items);
    expect(items).toEqual([1, 2, 3]);
  });

  it('stops on an empty page even when a cursor comes with it', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/campaigns' }).reply(200, { items: [1], nextCursor: 'c1' }, { headers: json });
    pool.intercept({ path: '/v1/campaigns?after=c1' }).reply(200, { items: [], nextCursor: 'c2' }, { headers: json });
    const seen: unknown[] = [];
    for await (const page of pages(client(), '/campaigns', { all: true })) seen.push(page.items.length);
    expect(seen).toEqual([1, 0]);
  });

  it('without --all reads one page', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/campaigns' }).reply(200, { items: [1], nextCursor: 'c1' }, { headers: json });
    let count = 0;
    for await (const _ of pages(client(), '/campaigns')) count++;
    expect(count).toBe(1);
  });
});

describe('pagination keeps the caller’s query', () => {
  it('a limit and cursor in the path survive --paginate', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/personal-links?limit=2&status=ACTIVE' }).reply(200, { items: [1, 2], nextCursor: 'c1' }, { headers: json });
    pool.intercept({ path: '/v1/personal-links?limit=2&status=ACTIVE&after=c1' }).reply(200, { items: [3], nextCursor: null }, { headers: json });
    const items: unknown[] = [];
    for await (const page of pages(client(), '/personal-links', { query: { limit: '2', status: 'ACTIVE' }, all: true })) items.push(...page.items);
    expect(items).toEqual([1, 2, 3]);
  });
});
