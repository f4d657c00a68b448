import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { pagesOf } from '../../src/api/paginate.js';
import * as api from '../../src/api/resources.js';
import { ApiDouble } from '../helpers/double.js';

const LINK = '0b7c5a52-3f5e-4c0e-9d59-6f3a1f9c2b10';
const STORE = '5e0f8f4a-1b2c-4d3e-8f90-a1b2c3d4e5f6';
const ORDER = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const BRAND = '11111111-2222-4333-8444-555555555555';

let double: ApiDouble;
let client: ApiClient;

beforeAll(async () => {
  double = await new ApiDouble().start();
  client = new ApiClient({ baseUrl: double.baseUrl, apiKey: 'svc_live_resources0000', maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await double.stop();
});

/** The one request a call sent, as the service saw it. */
async function sent(route: string, call: () => Promise<{ status: number; body: unknown }>, answer: { status?: number; body: unknown } = { body: { ok: true } }) {
  const before = double.requests.length;
  double.on(route, answer);
  const response = await call();
  expect(response.body).toEqual(answer.body);
  const requests = double.requests.slice(before);
  expect(requests).toHaveLength(1);
  const [{ method, path, headers, body }] = requests;
  return { method, path, contentType: headers['content-type'], idempotencyKey: headers['idempotency-key'], body: body === '' ? undefined : JSON.parse(body) };
}

describe('resource functions send exactly their operation', () => {
  it('getMe: GET /me', async () => {
    expect(await sent('GET /me', () => api.getMe(client))).toEqual({ method: 'GET', path: '/me', contentType: undefined, idempotencyKey: undefined, body: undefined });
  });

  it('listCampaigns: the query as given, in its order', async () => {
    const route = `GET /campaigns?brandId=${BRAND}&status=COMPLETED&limit=100`;
    expect(await sent(route, () => api.listCampaigns(client, { brandId: BRAND, status: 'COMPLETED', limit: 100 }))).toEqual({
      method: 'GET', path: `/campaigns?brandId=${BRAND}&status=COMPLETED&limit=100`, contentType: undefined, idempotencyKey: undefined, body: undefined,
    });
  });

  it('listPersonalLinks: no query, no query string; absent members left out', async () => {
    expect((await sent('GET /personal-links', () => api.listPersonalLinks(client))).path).toBe('/personal-links');
    expect((await sent('GET /personal-links?status=ACTIVE&after=c1', () => api.listPersonalLinks(client, { brandId: undefined, status: 'ACTIVE', after: 'c1' }))).path).toBe(
      '/personal-links?status=ACTIVE&after=c1',
    );
  });

  it('createPersonalLink: POST with the JSON body and the Idempotency-Key', async () => {
    const body = { campaignId: LINK, fullName: 'Ada Lovelace', locale: 'en-US' };
    expect(await sent('POST /personal-links', () => api.createPersonalLink(client, body, { idempotencyKey: 'k-1' }), { status: 201, body: { id: LINK } })).toEqual({
      method: 'POST', path: '/personal-links', contentType: 'application/json', idempotencyKey: 'k-1', body,
    });
  });

  it('getPersonalLink and getRewardStoreOrder: the id encoded into the path', async () => {
    expect((await sent(`GET /personal-links/${LINK}`, () => api.getPersonalLink(client, LINK))).path).toBe(`/personal-links/${LINK}`);
    expect((await sent('GET /personal-links/a%2F..%3Fx%3D1%23y', () => api.getPersonalLink(client, 'a/..?x=1#y'))).path).toBe('/personal-links/a%2F..%3Fx%3D1%23y');
    expect((await sent(`GET /reward-store-orders/${ORDER}`, () => api.getRewardStoreOrder(client, ORDER))).path).toBe(`/reward-store-orders/${ORDER}`);
  });

  it('cancelPersonalLink: POST …:cancel with the reason, Idempotency-Key only when given', async () => {
    expect(await sent(`POST /personal-links/${LINK}:cancel`, () => api.cancelPersonalLink(client, LINK, { reason: 'duplicate' }))).toEqual({
      method: 'POST', path: `/personal-links/${LINK}:cancel`, contentType: 'application/json', idempotencyKey: undefined, body: { reason: 'duplicate' },
    });
    expect((await sent(`POST /personal-links/${ORDER}:cancel`, () => api.cancelPersonalLink(client, ORDER, { reason: 'x' }, { idempotencyKey: 'k-2' }))).idempotencyKey).toBe('k-2');
  });

  it('listRewardStores and getRewardStore: required query in the order given', async () => {
    expect((await sent('GET /reward-stores?limit=5', () => api.listRewardStores(client, { limit: 5 }))).path).toBe('/reward-stores?limit=5');
    const route = `GET /reward-stores/${STORE}?brandId=${BRAND}&country=DE&locale=de-DE`;
    expect(await sent(route, () => api.getRewardStore(client, STORE, { brandId: BRAND, country: 'DE', locale: 'de-DE' }))).toEqual({
      method: 'GET', path: `/reward-stores/${STORE}?brandId=${BRAND}&country=DE&locale=de-DE`, contentType: undefined, idempotencyKey: undefined, body: undefined,
    });
  });

  it('placeRewardStoreOrder: POST the order with its Idempotency-Key', async () => {
    const body = {
      storeId: STORE, brandId: BRAND, productId: ORDER, variations: {}, coinPrice: '1200',
      recipient: { name: 'Ada', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', country: 'DE' as const } },
    };
    expect(await sent('POST /reward-store-orders', () => api.placeRewardStoreOrder(client, body, { idempotencyKey: 'k-3' }), { status: 201, body: { id: ORDER } })).toEqual({
      method: 'POST', path: '/reward-store-orders', contentType: 'application/json', idempotencyKey: 'k-3', body,
    });
  });

  it('listRewardStoreOrders and listEvents: their filters and cursor', async () => {
    expect((await sent(`GET /reward-store-orders?storeId=${STORE}&status=SENT`, () => api.listRewardStoreOrders(client, { storeId: STORE, status: 'SENT' }))).path).toBe(
      `/reward-store-orders?storeId=${STORE}&status=SENT`,
    );
    expect((await sent('GET /events?after=c9&limit=100', () => api.listEvents(client, { after: 'c9', limit: 100 }))).path).toBe('/events?after=c9&limit=100');
  });

  it('testWebhook: POST /webhooks:test without a body or Content-Type (the description declares none), no Idempotency-Key', async () => {
    const answer = { body: { responseStatus: 204, error: null } };
    expect(await sent('POST /webhooks:test', () => api.testWebhook(client), answer)).toEqual({
      method: 'POST', path: '/webhooks:test', contentType: undefined, idempotencyKey: undefined, body: undefined,
    });
  });

  it('list operations carry their path', () => {
    expect([api.listCampaigns, api.listPersonalLinks, api.listRewardStores, api.listRewardStoreOrders, api.listEvents].map((list) => list.path)).toEqual([
      '/campaigns', '/personal-links', '/reward-stores', '/reward-store-orders', '/events',
    ]);
  });
});

describe('pagesOf: the shared pager over a typed list operation', () => {
  it('follows nextCursor with the query, the limit and the cursor, and stops on null', async () => {
    const before = double.requests.length;
    double.on(`GET /personal-links?status=ACTIVE&limit=2`, { body: { items: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' } });
    double.on(`GET /personal-links?status=ACTIVE&limit=2&after=c1`, { body: { items: [{ id: 'c' }], nextCursor: null } });
    const seen: { items: unknown[]; nextCursor: string | null }[] = [];
    for await (const page of pagesOf(client, api.listPersonalLinks, { query: { status: 'ACTIVE' }, limit: 2, all: true })) seen.push(page);
    expect(seen).toEqual([
      { items: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' },
      { items: [{ id: 'c' }], nextCursor: null },
    ]);
    expect(double.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /personal-links?status=ACTIVE&limit=2',
      'GET /personal-links?status=ACTIVE&limit=2&after=c1',
    ]);
  });
});
