/**
 * JSON from outside has no prototype: a `__proto__` or `constructor` member of a request body, a
 * query string or an admin body is an ordinary member, ignored or refused as the spec says, and
 * never read as an inherited field. Bodies are written as JSON text: an object literal with a
 * `__proto__` key would set the literal's prototype instead of carrying the member.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox;
let campaignId: string;
let order: Record<string, unknown>;
let optionsGift: { productId: string; coinPrice: string; combinations: { variations: Record<string, string> }[] };
let counter = 0;

beforeAll(async () => {
  sb = await startSandbox();
  campaignId = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1).id;
  const store = (await sb.api('GET', '/reward-stores')).body.items.find((s: { phase: string }) => s.phase === 'LIVE');
  const brandId = store.brandIds[0];
  const read = (await sb.api('GET', `/reward-stores/${store.id}?brandId=${brandId}&country=DE`)).body;
  const gifts = read.sections.flatMap((s: { items: unknown[] }) => s.items);
  const plain = gifts.find((g: { dimensions: unknown[] }) => g.dimensions.length === 0);
  optionsGift = gifts.find((g: { dimensions: unknown[] }) => g.dimensions.length > 0);
  order = {
    storeId: store.id,
    brandId,
    productId: plain.productId,
    variations: {},
    coinPrice: plain.coinPrice,
    recipient: { name: 'Test Player', phone: '+4915112345678', address: { street: 'Teststr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
  };
});
afterAll(() => sb.close());

const post = (path: string, rawBody: string) => sb.api('POST', path, { rawBody, headers: { 'Content-Type': 'application/json' }, idempotencyKey: `proto-${++counter}` });
const fields = (reply: { body: { errors?: { field: string; code: string }[] } }) => (reply.body.errors ?? []).map((e) => `${e.field}:${e.code}`).sort();

describe('request bodies', () => {
  test('a link whose members are all under __proto__ is refused as the real API does', async () => {
    const before = (await sb.api('GET', '/personal-links?limit=100')).body.items.length;
    const reply = await post('/personal-links', `{"__proto__":{"campaignId":"${campaignId}","fullName":"X"}}`);
    expect(reply.status).toBe(400);
    expect(fields(reply)).toEqual(['campaignId:required', 'fullName:required']);
    expect((await sb.api('GET', '/personal-links?limit=100')).body.items).toHaveLength(before);
  });

  test('an order whose members are all under __proto__ places nothing', async () => {
    const before = (await sb.api('GET', '/reward-store-orders?limit=100')).body.items.length;
    const reply = await post('/reward-store-orders', JSON.stringify({ proto: order }).replace('"proto"', '"__proto__"'));
    expect(reply.status).toBe(400);
    expect(fields(reply)).toEqual(['brandId:required', 'coinPrice:required', 'productId:required', 'recipient:required', 'storeId:required']);
    expect((await sb.api('GET', '/reward-store-orders?limit=100')).body.items).toHaveLength(before);
  });

  test('nested members under __proto__ are not inherited either (recipient, address, variations)', async () => {
    const recipient = JSON.stringify({ ...order, recipient: { proto: order.recipient } }).replace('"proto"', '"__proto__"');
    expect(fields(await post('/reward-store-orders', recipient))).toEqual(['recipient.address:required', 'recipient.name:required', 'recipient.phone:required']);
    const variations = JSON.stringify({ ...order, productId: optionsGift.productId, coinPrice: optionsGift.coinPrice, variations: { proto: optionsGift.combinations[0].variations } }).replace('"proto"', '"__proto__"');
    const reply = await post('/reward-store-orders', variations);
    expect(reply.status).toBe(400);
    expect(fields(reply)).toEqual(['variations.__proto__:invalid']);
  });

  test('__proto__ and constructor beside valid members are ordinary unknown members: ignored', async () => {
    const body = JSON.stringify({ campaignId, fullName: 'Proto Player' }).replace('{', '{"__proto__":{"status":"CLAIMED"},"constructor":{"name":"x"},');
    const reply = await post('/personal-links', body);
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('ACTIVE');
    expect(Object.keys(reply.body)).not.toContain('__proto__');
    expect(Object.keys(reply.body)).not.toContain('constructor');
  });
});

describe('query strings and admin bodies', () => {
  test('?__proto__ and ?constructor are unknown parameters, not inherited ones', async () => {
    const reply = await sb.api('GET', '/campaigns?__proto__=x&constructor=y&toString=z');
    expect(reply.status).toBe(200);
    expect(reply.body.items.length).toBeGreaterThan(0);
  });

  test('admin bodies with __proto__ members neither pollute nor answer 500', async () => {
    const admin = (method: string, path: string, text: string) =>
      fetch(`${sb.info.adminUrl}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: text }).then(async (r) => ({ status: r.status, body: await r.text() }));
    const faults = await admin('PUT', '/faults', '{"__proto__":{"errorRate":1},"constructor":{"x":1}}');
    expect(faults.status).toBe(200);
    expect(JSON.parse(faults.body)).toMatchObject({ errorRate: 0 });
    const gift = await admin('PATCH', `/gifts/${order.productId as string}`, '{"prices":{"__proto__":{"default":"1"},"constructor":"2"}}');
    expect(gift.status).toBe(400);
    expect(({} as Record<string, unknown>).default).toBeUndefined();
    expect((await sb.api('GET', '/campaigns')).status).toBe(200);
  });
});
