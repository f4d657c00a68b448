import { afterEach, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

/* Rules found missing in a spec review, one test each (the sandboxes here are short-lived). */

const open: TestSandbox[] = [];
async function fresh(options: Parameters<typeof startSandbox>[0] = {}): Promise<TestSandbox> {
  const sb = await startSandbox(options);
  open.push(sb);
  return sb;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
});

let counter = 0;
const key = (): string => `conf-${++counter}`;

interface Gift {
  productId: string;
  name: string;
  coinPrice: string;
  dimensions: unknown[];
  combinations: { variations: Record<string, string> }[];
}

async function liveStore(sb: TestSandbox): Promise<{ id: string; brandId: string; gifts: Gift[] }> {
  const stores = (await sb.api('GET', '/reward-stores')).body.items;
  const live = stores.find((s: { phase: string }) => s.phase === 'LIVE');
  const read = await sb.api('GET', `/reward-stores/${live.id}?brandId=${live.brandIds[0]}&country=DE`);
  expect(read.status).toBe(200);
  return { id: live.id, brandId: live.brandIds[0], gifts: read.body.sections.flatMap((s: { items: Gift[] }) => s.items) };
}

function orderBody(store: { id: string; brandId: string }, gift: { productId: string; coinPrice: string }, extra: Record<string, unknown> = {}) {
  return {
    storeId: store.id,
    brandId: store.brandId,
    productId: gift.productId,
    variations: {},
    coinPrice: gift.coinPrice,
    recipient: { name: 'R', phone: '+4915112345678', address: { street: 'S 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    ...extra,
  };
}

describe('seeded ids', () => {
  test('the same seed gives the same ids for seeded records, new records random ids; another seed different ones', async () => {
    const [a, b, c] = [await fresh({ seed: 11 }), await fresh({ seed: 11 }), await fresh({ seed: 12 })];
    const ids = async (sb: TestSandbox) => {
      const links = (await sb.api('GET', '/personal-links')).body.items.map((l: { id: string }) => l.id);
      const events = (await sb.api('GET', '/events')).body.items.map((e: { id: string }) => e.id);
      const campaign = (await sb.api('GET', '/campaigns')).body.items.find((x: { brandIds: string[] }) => x.brandIds.length === 1);
      const created = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'P' }, idempotencyKey: 'same' });
      expect(created.status).toBe(201);
      return { links, events, created: created.body.id };
    };
    const [ia, ib, ic] = [await ids(a), await ids(b), await ids(c)];
    expect(ia.links.length).toBeGreaterThan(0);
    expect({ links: ia.links, events: ia.events }).toEqual({ links: ib.links, events: ib.events });
    // Records made while a sandbox runs get random ids (docs/sandbox.md).
    expect(ia.created).not.toBe(ib.created);
    expect(ic.links).not.toEqual(ia.links);
    expect(ic.created).not.toBe(ia.created);
  });
});

describe('media types', () => {
  test('a POST declaring a type other than JSON is 415 even without a body', async () => {
    const sb = await fresh();
    const reply = await sb.api('POST', '/personal-links', { headers: { 'Content-Type': 'text/plain' }, idempotencyKey: key() });
    expect(reply.status).toBe(415);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    const ping = await sb.api('POST', '/webhooks:test');
    expect(ping.status).toBe(200);
  });
});

describe('orders', () => {
  test('variations left out for a gift with options is 400 required on variations', async () => {
    const sb = await fresh();
    const store = await liveStore(sb);
    const hoodie = store.gifts.find((g) => g.dimensions.length === 2) as Gift;
    const body: Record<string, unknown> = orderBody(store, hoodie);
    delete body.variations;
    const reply = await sb.api('POST', '/reward-store-orders', { body, idempotencyKey: key() });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.objectContaining({ field: 'variations', code: 'required' })]);
    const wrong = await sb.api('POST', '/reward-store-orders', { body: { ...body, variations: { size: 'XXL', color: 'black' } }, idempotencyKey: key() });
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'variations', code: 'invalid' })]);
  });

  test('a gift on offer now can stop being available: NOT_AVAILABLE_NOW, and it leaves the store read', async () => {
    const sb = await fresh();
    const store = await liveStore(sb);
    const calendar = store.gifts.find((g) => g.name === 'Advent Calendar') as Gift;
    expect(calendar).toBeDefined();
    await sb.admin('POST', '/clock', { advanceSeconds: 4 * 86_400 });
    const reply = await sb.api('POST', '/reward-store-orders', { body: orderBody(store, calendar), idempotencyKey: key() });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ code: 'gift_not_available', reason: 'NOT_AVAILABLE_NOW' });
    expect((await liveStore(sb)).gifts.map((g) => g.name)).not.toContain('Advent Calendar');
  });

  test('admin can withdraw a gift (NOT_PUBLISHED) and change a price; placed orders keep theirs', async () => {
    const sb = await fresh();
    const store = await liveStore(sb);
    const headphones = store.gifts.find((g) => g.name === 'Wireless Headphones') as Gift;
    const placed = await sb.api('POST', '/reward-store-orders', { body: orderBody(store, headphones), idempotencyKey: key() });
    expect(placed.status).toBe(201);
    const all = (await sb.admin('GET', '/gifts')).body.items;
    expect(all.some((g: { published: boolean }) => !g.published)).toBe(true);
    expect((await sb.admin('PATCH', `/gifts/${headphones.productId}`, { prices: { default: '2600', DE: '2600' } })).status).toBe(200);
    const changed = await sb.api('POST', '/reward-store-orders', { body: orderBody(store, headphones), idempotencyKey: key() });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: 'price_changed', coinPrice: '2600' });
    const again = await sb.api('GET', `/reward-store-orders/${placed.body.id}`);
    expect(again.body.coinPrice).toBe(headphones.coinPrice);
    await sb.admin('PATCH', `/gifts/${headphones.productId}`, { published: false });
    const withdrawn = await sb.api('POST', '/reward-store-orders', { body: orderBody(store, { ...headphones, coinPrice: '2600' }), idempotencyKey: key() });
    expect(withdrawn.body).toMatchObject({ code: 'gift_not_available', reason: 'NOT_PUBLISHED' });
  });

  test('a store that ends leaves the list, reads 404 and takes no orders', async () => {
    const sb = await fresh();
    const before = (await sb.api('GET', '/reward-stores')).body.items;
    const scheduled = before.find((s: { phase: string }) => s.phase === 'SCHEDULED');
    expect(scheduled.endsAt).toMatch(/Z$/);
    await sb.admin('POST', '/clock', { advanceSeconds: 91 * 86_400 });
    const after = (await sb.api('GET', '/reward-stores')).body.items;
    expect(after.map((s: { id: string }) => s.id)).not.toContain(scheduled.id);
    const read = await sb.api('GET', `/reward-stores/${scheduled.id}?brandId=${scheduled.brandIds[0]}&country=DE`);
    expect(read.status).toBe(404);
    const placed = await sb.api('POST', '/reward-store-orders', {
      body: orderBody({ id: scheduled.id, brandId: scheduled.brandIds[0] }, { productId: scheduled.id, coinPrice: '1' }),
      idempotencyKey: key(),
    });
    expect(placed.body.code).toBe('reward_store_not_live');
  });
});

describe('campaigns', () => {
  test('a reopened campaign leaves its expired links EXPIRED and takes new links', async () => {
    const sb = await fresh();
    const campaign = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
    const link = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'P' }, idempotencyKey: key() });
    expect((await sb.admin('POST', `/campaigns/${campaign.id}/complete`)).status).toBe(200);
    expect((await sb.api('GET', `/personal-links/${link.body.id}`)).body.status).toBe('EXPIRED');
    const reopened = await sb.admin('POST', `/campaigns/${campaign.id}/reopen`);
    expect(reopened.body.status).toBe('ACTIVE');
    expect((await sb.api('GET', `/personal-links/${link.body.id}`)).body.status).toBe('EXPIRED');
    const expired = (await sb.api('GET', '/events')).body.items.filter((e: { type: string }) => e.type === 'personal_link.expired');
    expect(expired.filter((e: { data: { id: string } }) => e.data.id === link.body.id)).toHaveLength(1);
    const again = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'Q' }, idempotencyKey: key() });
    expect(again.status).toBe(201);
    expect((await sb.admin('POST', `/campaigns/${campaign.id}/reopen`)).status).toBe(409);
  });
});

describe('cancel', () => {
  test('not_cancellable for a link created elsewhere carries reason and currentStatus', async () => {
    const sb = await fresh();
    const campaign = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
    const link = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'P' }, idempotencyKey: key() });
    const reply = await sb.api('POST', `/personal-links/${link.body.id}:cancel`, { as: 'other', body: { reason: 'no' } });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: 'not_cancellable', reason: 'created_elsewhere', currentStatus: 'ACTIVE' });
  });
});
