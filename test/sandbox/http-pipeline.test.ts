import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TIMESTAMP, type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

function expectProblem(reply: { status: number; headers: Headers; body: Record<string, unknown> }, status: number, code?: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ status, title: expect.any(String), type: expect.any(String), detail: expect.any(String) });
  if (code !== undefined) expect(reply.body.code).toBe(code);
}

describe('GET /me', () => {
  test('returns tenant, key, brands and environment', async () => {
    const me = await sb.api('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('content-type')).toMatch(/^application\/json/);
    expect(me.body.environment).toBe('production');
    expect(me.body.tenant.locales).toEqual(['en-US', 'de-DE']);
    expect(me.body.tenant.approvalRequired).toBe(false);
    expect(me.body.tenant.customFields.map((f: { type: string }) => f.type).sort()).toEqual(['CHECKBOX', 'DROPDOWN', 'TEXT']);
    expect(me.body.key).toEqual({ name: 'full', scopes: ['PERSONAL_LINKS', 'REWARD_STORES'], webhookUrl: null });
    expect(me.body.brands.length).toBeGreaterThanOrEqual(3);
    const limited = await sb.api('GET', '/me', { as: 'links' });
    expect(limited.body.brands).toHaveLength(1);
  });

  test('the same seed gives the same ids, keys and secrets', async () => {
    const again = await startSandbox();
    try {
      expect(again.info.keys).toEqual(sb.info.keys.map((k) => ({ ...k })));
      const [a, b] = await Promise.all([sb.api('GET', '/campaigns'), again.api('GET', '/campaigns')]);
      expect(a.body.items.map((c: { id: string }) => c.id)).toEqual(b.body.items.map((c: { id: string }) => c.id));
      for (const key of again.info.keys) {
        expect(key.apiKey).toMatch(/^svc_live_[A-Za-z0-9]+$/);
        expect(key.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
      }
    } finally {
      await again.close();
    }
  });
});

describe('authentication', () => {
  test('missing, malformed, unknown keys are 401 invalid_api_key', async () => {
    expectProblem(await sb.api('GET', '/me', { key: null }), 401, 'invalid_api_key');
    expectProblem(await sb.api('GET', '/me', { key: null, headers: { Authorization: 'Basic abc' } }), 401, 'invalid_api_key');
    expectProblem(await sb.api('GET', '/me', { key: 'not-a-key' }), 401, 'invalid_api_key');
    expectProblem(await sb.api('GET', '/me', { key: 'svc_live_unknownunknownunknown' }), 401, 'invalid_api_key');
    expectProblem(await sb.api('GET', '/campaigns', { key: null }), 401, 'invalid_api_key');
  });

  test('a revoked key and API access off are 401 on every call', async () => {
    await sb.admin('PATCH', '/keys/other', { revoked: true });
    expectProblem(await sb.api('GET', '/me', { as: 'other' }), 401, 'invalid_api_key');
    await sb.admin('PATCH', '/keys/other', { revoked: false });
    expect((await sb.api('GET', '/me', { as: 'other' })).status).toBe(200);

    expect((await sb.admin('PATCH', '/settings', { apiAccess: false })).status).toBe(200);
    try {
      for (const path of ['/me', '/campaigns', '/events', '/reward-stores']) expectProblem(await sb.api('GET', path), 401, 'invalid_api_key');
      expectProblem(await sb.api('POST', '/webhooks:test'), 401, 'invalid_api_key');
    } finally {
      await sb.admin('PATCH', '/settings', { apiAccess: true });
    }
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('a key without the scope gets 403 insufficient_scope', async () => {
    expectProblem(await sb.api('GET', '/reward-stores', { as: 'links' }), 403, 'insufficient_scope');
    expectProblem(await sb.api('GET', '/reward-store-orders', { as: 'links' }), 403, 'insufficient_scope');
    expectProblem(await sb.api('GET', '/campaigns', { as: 'stores' }), 403, 'insufficient_scope');
    expectProblem(await sb.api('GET', '/personal-links', { as: 'stores' }), 403, 'insufficient_scope');
    expect((await sb.api('GET', '/events', { as: 'stores' })).status).toBe(200);
  });

  test('records of other brands and non-UUID ids are 404 not_found', async () => {
    const me = await sb.api('GET', '/me');
    const limitedBrand = (await sb.api('GET', '/me', { as: 'links' })).body.brands[0].id;
    const otherBrand = me.body.brands.find((b: { id: string }) => b.id !== limitedBrand).id;
    const created = await sb.admin('POST', '/links', { brandId: otherBrand, fullName: 'Someone Else' });
    expect(created.status).toBe(201);
    expect((await sb.api('GET', `/personal-links/${created.body.id}`)).status).toBe(200);
    expectProblem(await sb.api('GET', `/personal-links/${created.body.id}`, { as: 'links' }), 404, 'not_found');
    expectProblem(await sb.api('GET', '/personal-links/not-a-uuid'), 404, 'not_found');
    expectProblem(await sb.api('GET', '/reward-store-orders/123'), 404, 'not_found');
    expectProblem(await sb.api('GET', '/reward-stores/xyz?brandId=x&country=DE'), 404, 'not_found');
    expectProblem(await sb.api('POST', '/personal-links/nope:cancel', { body: { reason: 'x' } }), 404, 'not_found');
    const listed = await sb.api('GET', '/personal-links?limit=100', { as: 'links' });
    expect(listed.body.items.every((l: { brandId: string }) => l.brandId === limitedBrand)).toBe(true);
  });
});

describe('generic HTTP errors', () => {
  test('405 for a known path with the wrong method', async () => {
    const reply = await sb.api('DELETE', '/me');
    expectProblem(reply, 405);
    expect(reply.headers.get('allow')).toBe('GET');
    expectProblem(await sb.api('GET', '/webhooks:test'), 405);
    expectProblem(await sb.api('PUT', '/personal-links'), 405);
    expectProblem(await sb.api('GET', '/nothing-here'), 404, 'not_found');
  });

  test('406 when Accept excludes JSON; */* and no Accept are fine', async () => {
    expectProblem(await sb.api('GET', '/me', { headers: { Accept: 'text/html' } }), 406);
    expect((await sb.api('GET', '/me', { headers: { Accept: '*/*' } })).status).toBe(200);
    expect((await sb.api('GET', '/me', { headers: { Accept: 'text/html, application/json;q=0.5' } })).status).toBe(200);
  });

  test('415 for a body that is not JSON, and nothing is created', async () => {
    const before = sb.sandbox.state.links.length;
    const reply = await sb.api('POST', '/personal-links', {
      rawBody: 'campaignId=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      idempotencyKey: 'form-1',
    });
    expectProblem(reply, 415);
    expect(sb.sandbox.state.links.length).toBe(before);
  });

  test('400 invalid_request for invalid JSON', async () => {
    const reply = await sb.api('POST', '/personal-links', { rawBody: '{"campaignId": ', headers: { 'Content-Type': 'application/json' }, idempotencyKey: 'bad-json' });
    expectProblem(reply, 400, 'invalid_request');
  });

  test('413 for a body over 10 MB; nothing runs', async () => {
    const before = sb.sandbox.state.links.length;
    const big = JSON.stringify({ fullName: 'x'.repeat(11 * 1024 * 1024) });
    const reply = await sb.api('POST', '/personal-links', { rawBody: big, headers: { 'Content-Type': 'application/json' }, idempotencyKey: 'big-1' });
    expect(reply.status).toBe(413);
    expect(sb.sandbox.state.links.length).toBe(before);
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('413 also for a streamed (chunked) body that passes 10 MB', async () => {
    const before = sb.sandbox.state.links.length;
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 12) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${sb.info.baseUrl}/personal-links`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sb.apiKey('full')}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'stream-1' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const status = res.status;
    expect(status).toBe(413);
    expect(sb.sandbox.state.links.length).toBe(before);
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('timestamps have exactly six decimals', async () => {
    const links = await sb.api('GET', '/personal-links');
    for (const link of links.body.items) {
      expect(link.createdAt).toMatch(TIMESTAMP);
      expect(link.updatedAt).toMatch(TIMESTAMP);
    }
    const events = await sb.api('GET', '/events');
    for (const event of events.body.items) expect(event.occurredAt).toMatch(TIMESTAMP);
  });
});

describe('rate limit', () => {
  test('429 rate_limited with Retry-After past the per-minute limit', async () => {
    const local = await startSandbox({ rateLimitPerMinute: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await local.api('GET', '/me')).status);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      const limited = await local.api('GET', '/me');
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(Number(limited.headers.get('retry-after')))).toBe(true);
      // Per key: another key is not limited.
      expect((await local.api('GET', '/me', { as: 'other' })).status).toBe(200);
      // The limit can be changed through the admin API.
      await local.admin('PATCH', '/settings', { rateLimitPerMinute: 1000 });
      expect((await local.api('GET', '/me')).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  test('a client pacing itself at exactly the limit is never limited', async () => {
    const local = await startSandbox({ rateLimitPerMinute: 600 });
    try {
      const started = performance.now();
      let limited = 0;
      for (let i = 0; i < 30; i++) {
        const wait = started + i * 100 - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if ((await local.api('GET', '/me')).status === 429) limited++;
      }
      expect(limited).toBe(0);
    } finally {
      await local.close();
    }
  });
});

describe('faults', () => {
  test('errorRate answers 5xx, rateLimitRate answers 429 with Retry-After 1, resets drop the connection', async () => {
    expect((await sb.admin('PUT', '/faults', { errorRate: 1 })).status).toBe(200);
    const failed = await sb.api('GET', '/me');
    expect(failed.status === 500 || failed.status === 502).toBe(true);
    await sb.admin('PUT', '/faults', { rateLimitRate: 1 });
    const limited = await sb.api('GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    await sb.admin('PUT', '/faults', { resetRate: 1 });
    await expect(sb.api('GET', '/me')).rejects.toThrow();
    await sb.admin('PUT', '/faults', {});
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('the admin API refuses bad bodies', async () => {
    expect((await sb.admin('PUT', '/faults', { errorRate: 2 })).status).toBe(400);
    expect((await sb.admin('POST', '/clock', { advanceSeconds: 'x' })).status).toBe(400);
    expect((await sb.admin('PATCH', '/keys/nobody', { revoked: true })).status).toBe(404);
    expect((await sb.admin('GET', '/links')).status).toBe(405);
  });
});
