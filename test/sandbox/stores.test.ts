import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

interface Gift {
  productId: string;
  name: string;
  coinPrice: string;
  dimensions: { name: string; label: string; values: { value: string; label: string }[] }[];
  combinations: { variations: Record<string, string> }[];
}
interface StoreRead {
  id: string;
  name: string;
  description: string | null;
  currency: { name: string; symbol: string };
  sections: { id: string; name: string; items: Gift[] }[];
}

let sb: TestSandbox;
let live: { id: string; brandIds: string[] };
let scheduled: { id: string; brandIds: string[] };
let brandId: string;
let secondBrandId: string;
let counter = 0;

beforeAll(async () => {
  sb = await startSandbox();
  const stores = (await sb.api('GET', '/reward-stores')).body.items;
  live = stores.find((s: { phase: string }) => s.phase === 'LIVE');
  scheduled = stores.find((s: { phase: string }) => s.phase === 'SCHEDULED');
  [brandId, secondBrandId] = live.brandIds;
});
afterAll(() => sb.close());

async function readStore(country: string, locale?: string, brand = brandId): Promise<StoreRead> {
  const reply = await sb.api('GET', `/reward-stores/${live.id}?brandId=${brand}&country=${country}${locale ? `&locale=${locale}` : ''}`);
  expect(reply.status).toBe(200);
  return reply.body;
}

const gifts = (store: StoreRead): Gift[] => store.sections.flatMap((s) => s.items);
const giftNamed = (store: StoreRead, name: string): Gift => gifts(store).find((g) => g.name === name) as Gift;

function order(body: Record<string, unknown>, as: 'full' | 'stores' | 'other' = 'full') {
  return sb.api('POST', '/reward-store-orders', { body, as, idempotencyKey: `order-${++counter}` });
}

function orderBody(gift: Gift, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    storeId: live.id,
    brandId,
    productId: gift.productId,
    variations: gift.combinations[0]?.variations ?? {},
    coinPrice: gift.coinPrice,
    recipient: {
      name: 'Rita Recipient',
      email: 'rita@example.com',
      phone: '+4915112345678',
      address: { street: '1 Secret Street', city: 'Berlin', postalCode: '10115', country: 'DE' },
    },
    ...overrides,
  };
}

describe('reading stores', () => {
  test('lists SCHEDULED and LIVE stores sorted by name', async () => {
    const stores = (await sb.api('GET', '/reward-stores')).body.items;
    expect(stores.map((s: { name: string }) => s.name)).toEqual(['Spring Collection', 'Winter Rewards']);
    expect(scheduled).toBeDefined();
    const page = await sb.api('GET', '/reward-stores?limit=1');
    const next = await sb.api('GET', `/reward-stores?limit=1&after=${page.body.nextCursor}`);
    expect(next.body.items[0].name).toBe('Winter Rewards');
    expect(next.body.nextCursor).toBeNull();
  });

  test('sold-out combinations, sections without orderable gifts and unsold gifts are left out', async () => {
    const store = await readStore('DE');
    const hoodie = giftNamed(store, 'Hoodie');
    expect(hoodie.dimensions.map((d) => d.name)).toEqual(['size', 'color']);
    expect(hoodie.combinations).toHaveLength(5);
    expect(hoodie.combinations).not.toContainEqual({ variations: { size: 'L', color: 'white' } });
    const headphones = giftNamed(store, 'Wireless Headphones');
    expect(headphones.dimensions).toEqual([]);
    expect(headphones.combinations).toEqual([]);
    expect(store.sections.map((s) => s.name)).not.toContain('Limited Editions');
    expect(giftNamed(store, 'Smart Speaker')).toBeDefined();
    const hongKong = await readStore('HK');
    expect(gifts(hongKong).map((g) => g.name)).not.toContain('Smart Speaker');
    expect(hongKong.sections.map((s) => s.name)).not.toContain('Smart Home');
    expect(store.description).toContain('\n');
  });

  test('prices per country, gifts per brand', async () => {
    expect(giftNamed(await readStore('DE'), 'Hoodie').coinPrice).toBe('1100');
    expect(giftNamed(await readStore('US'), 'Hoodie').coinPrice).toBe('1200');
    expect(gifts(await readStore('DE', undefined, secondBrandId)).map((g) => g.name)).not.toContain('Coffee Gift Card');
    expect(giftNamed(await readStore('DE'), 'Coffee Gift Card')).toBeDefined();
  });

  test('de-DE translates gifts, options, sections and currency but not the store name', async () => {
    const en = await readStore('DE');
    const de = await readStore('DE', 'de-DE');
    expect(de.name).toBe(en.name);
    expect(de.description).toBe(en.description);
    expect(de.currency.name).not.toBe(en.currency.name);
    expect(de.sections.map((s) => s.name)).toContain('Kleidung');
    const hoodie = giftNamed(de, 'Kapuzenpullover');
    expect(hoodie.dimensions[0].label).toBe('Größe');
    expect(hoodie.dimensions[1].values.map((v) => v.label)).toEqual(['Schwarz', 'Weiß']);
    expect(hoodie.dimensions[1].values.map((v) => v.value)).toEqual(['black', 'white']);
  });

  test('query validation and 404s', async () => {
    const bad = await sb.api('GET', `/reward-stores/${live.id}?brandId=x&country=Germany&locale=de_DE!`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['brandId', 'country', 'locale']);
    const missing = await sb.api('GET', `/reward-stores/${live.id}`);
    expect(missing.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['brandId', 'required'],
      ['country', 'required'],
    ]);
    const notEnabled = await sb.api('GET', `/reward-stores/${live.id}?brandId=${brandId}&country=DE&locale=fr-FR`);
    expect(notEnabled.body.errors[0]).toMatchObject({ field: 'locale', code: 'not_enabled' });
    const foreignBrand = sb.sandbox.state.brands.find((b) => !scheduled.brandIds.includes(b.id))?.id;
    expect((await sb.api('GET', `/reward-stores/${scheduled.id}?brandId=${foreignBrand}&country=DE`)).status).toBe(404);
    expect((await sb.api('GET', `/reward-stores/00000000-0000-4000-8000-000000000000?brandId=${brandId}&country=DE`)).status).toBe(404);
  });
});

describe('placing orders', () => {
  test('201 with price and currency kept, productName in the order locale, no personal data', async () => {
    const hoodie = giftNamed(await readStore('DE'), 'Hoodie');
    const placed = await order(orderBody(hoodie, { locale: 'de-DE', variations: { color: 'black', size: 'M' } }));
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({
      status: 'PROCESSING',
      coinPrice: '1100',
      productName: 'Kapuzenpullover',
      deliveryCountry: 'DE',
      currency: { name: 'Sternmünzen' },
      variations: { size: 'M', color: 'black' },
      shipment: null,
    });
    expect(placed.text).not.toMatch(/Rita|rita@|Secret Street|\+4915112345678|Berlin/);
    const listed = await sb.api('GET', '/reward-store-orders');
    expect(listed.body.items[0].id).toBe(placed.body.id);
    expect((await sb.api('GET', '/reward-store-orders', { as: 'other' })).body.items).toEqual([]);
    expect((await sb.api('GET', `/reward-store-orders/${placed.body.id}`, { as: 'other' })).status).toBe(404);
    expect((await sb.api('GET', `/reward-store-orders/${placed.body.id}`)).body).toEqual(placed.body);
  });

  test('refusals create nothing: each code', async () => {
    const store = await readStore('DE');
    const hoodie = giftNamed(store, 'Hoodie');
    const speaker = giftNamed(store, 'Smart Speaker');
    const before = sb.sandbox.state.orders.length;
    const expectRefusal = async (reply: Promise<{ status: number; body: Record<string, unknown> }>, status: number, code: string) => {
      const r = await reply;
      expect([r.status, r.body.code]).toEqual([status, code]);
      return r.body;
    };
    const changed = await expectRefusal(order(orderBody(hoodie, { coinPrice: '999' })), 409, 'price_changed');
    expect(changed.coinPrice).toBe('1100');
    await expectRefusal(order(orderBody(hoodie, { variations: { size: 'L', color: 'white' } })), 409, 'out_of_stock');
    const invalidCombo = await expectRefusal(order(orderBody(hoodie, { variations: { size: 'XL', color: 'black' } })), 400, 'invalid_request');
    expect(invalidCombo.errors).toEqual([expect.objectContaining({ field: 'variations' })]);
    await expectRefusal(order(orderBody(hoodie, { storeId: scheduled.id, brandId })), 422, 'reward_store_not_live');
    await expectRefusal(order(orderBody(hoodie, { storeId: '00000000-0000-4000-8000-000000000000' })), 422, 'reward_store_not_found');
    await expectRefusal(order(orderBody(hoodie, { brandId: '00000000-0000-4000-8000-000000000000' })), 422, 'brand_not_found');
    const hk = orderBody(speaker, { recipient: { name: 'R', phone: '+85212345678', address: { street: 's', city: 'Hong Kong', country: 'HK' } } });
    expect((await expectRefusal(order(hk), 422, 'gift_not_available')).reason).toBe('NOT_SOLD_IN_COUNTRY');
    const card = giftNamed(store, 'Coffee Gift Card');
    expect((await expectRefusal(order(orderBody(card, { brandId: secondBrandId })), 422, 'gift_not_available')).reason).toBe('NOT_USABLE_BY_BRAND');
    expect((await expectRefusal(order(orderBody(hoodie, { productId: '00000000-0000-4000-8000-000000000000' })), 422, 'gift_not_available')).reason).toBe('NOT_IN_STORE');
    const poster = sb.sandbox.state.stores[0].sections.flatMap((s) => s.gifts).find((g) => g.name['en-US'] === 'Signed Poster');
    expect((await expectRefusal(order(orderBody(hoodie, { productId: poster?.productId, variations: { edition: 'first' }, coinPrice: '900' })), 422, 'gift_not_available')).reason).toBe('NO_SELECTABLE_COMBINATION');
    expect(sb.sandbox.state.orders.length).toBe(before);
  });

  test('recipient validation: E.164, postal codes where the country uses them, lengths, locale', async () => {
    const headphones = giftNamed(await readStore('DE'), 'Wireless Headphones');
    const reply = await order(
      orderBody(headphones, {
        locale: 'it-IT',
        additionalDetails: 'd'.repeat(2001),
        recipient: { name: 'n'.repeat(101), email: 'nope', phone: '0151 123', address: { street: '', city: 'c'.repeat(101), country: 'DE' } },
      }),
    );
    expect(reply.status).toBe(400);
    const byField = Object.fromEntries(reply.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
    expect(byField).toEqual({
      locale: 'not_enabled',
      additionalDetails: 'too_long',
      'recipient.name': 'too_long',
      'recipient.email': 'invalid',
      'recipient.phone': 'invalid',
      'recipient.address.street': 'required',
      'recipient.address.city': 'too_long',
      'recipient.address.postalCode': 'required',
    });
    const noRecipient = await order({ storeId: live.id, brandId, productId: headphones.productId, coinPrice: '2500' });
    expect(noRecipient.body.errors).toEqual([expect.objectContaining({ field: 'recipient', code: 'required' })]);
    const hongKong = await order(orderBody(headphones, { recipient: { name: 'R', phone: '+85212345678', address: { street: 's', city: 'Hong Kong', country: 'HK' } } }));
    expect(hongKong.status).toBe(201);
    const wrongVariations = await order(orderBody(headphones, { variations: { size: 'M' } }));
    expect(wrongVariations.body.errors[0].field).toBe('variations');
  });

  test('order moves emit one event each, only to the placing key; the order keeps its price', async () => {
    const local = await startSandbox({ approvalRequired: true });
    try {
      const store = (await local.api('GET', '/reward-stores')).body.items.find((s: { phase: string }) => s.phase === 'LIVE');
      const read = (await local.api('GET', `/reward-stores/${store.id}?brandId=${store.brandIds[0]}&country=US`)).body as StoreRead;
      const headphones = giftNamed(read, 'Wireless Headphones');
      const body = {
        storeId: store.id,
        brandId: store.brandIds[0],
        productId: headphones.productId,
        variations: {},
        coinPrice: headphones.coinPrice,
        recipient: { name: 'N', phone: '+12025550123', address: { street: 's', city: 'c', postalCode: '10001', country: 'US' } },
      };
      const placed = await local.api('POST', '/reward-store-orders', { body, idempotencyKey: 'o1' });
      expect(placed.body.status).toBe('REQUESTED');
      const id = placed.body.id;
      expect((await local.admin('POST', `/orders/${id}/ship`)).status).toBe(409);
      expect((await local.admin('POST', `/orders/${id}/approve`)).body.status).toBe('PROCESSING');
      const shipped = await local.admin('POST', `/orders/${id}/ship`, { carrier: 'UPS', trackingReference: '1Z', trackingUrl: 'https://ups.example/1Z' });
      expect(shipped.body.shipment).toEqual({ carrier: 'UPS', trackingReference: '1Z', trackingUrl: 'https://ups.example/1Z' });
      expect((await local.admin('POST', `/orders/${id}/deliver`)).body.status).toBe('COMPLETED');
      expect((await local.admin('POST', `/orders/${id}/cancel`)).body.status).toBe('CANCELLED');
      expect((await local.admin('POST', `/orders/${id}/cancel`)).status).toBe(409);
      const feed = (await local.api('GET', '/events?limit=100')).body.items.filter((e: { type: string }) => e.type.startsWith('order.'));
      expect(feed.map((e: { type: string }) => e.type)).toEqual(['order.approved', 'order.sent', 'order.completed', 'order.cancelled']);
      expect(feed.every((e: { data: { coinPrice: string } }) => e.data.coinPrice === '2500')).toBe(true);
      expect((await local.api('GET', '/events?limit=100', { as: 'other' })).body.items.some((e: { type: string }) => e.type.startsWith('order.'))).toBe(false);
      // Without REWARD_STORES the placing key no longer sees them.
      await local.admin('PATCH', '/keys/full', { scopes: ['PERSONAL_LINKS'] });
      expect((await local.api('GET', '/events?limit=100')).body.items.some((e: { type: string }) => e.type.startsWith('order.'))).toBe(false);
      const filtered = await local.api('GET', '/reward-store-orders?status=NOPE', { as: 'stores' });
      expect(filtered.status).toBe(400);
    } finally {
      await local.close();
    }
  });
});
