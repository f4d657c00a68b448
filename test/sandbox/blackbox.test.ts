import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from './helpers.js';

/*
 * A black-box pass over openapi/openapi.yaml and docs/sandbox.md: only the ready-line info (baseUrl,
 * adminUrl, keys), /v1 and the admin paths docs/sandbox.md lists are used.
 * helpers.ts is used only to start a sandbox on port 0 and read its ready-line info.
 */

type KeyName = 'full' | 'other' | 'links' | 'stores';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by assertions
type Json = any;

interface Res {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

interface ReadyKey {
  name: string;
  apiKey: string;
  scopes: string[];
  brandIds: string[];
  webhookUrl: string | null;
  webhookSecret: string;
}

interface Box {
  baseUrl: string;
  adminUrl: string;
  keys: Record<KeyName, ReadyKey>;
  api(method: string, path: string, opts?: { as?: KeyName; auth?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string>; idem?: string }): Promise<Res>;
  admin(method: string, path: string, body?: unknown): Promise<Res>;
  close(): Promise<void>;
}

async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, text, body };
}

async function boot(options: { approvalRequired?: boolean } = {}): Promise<Box> {
  const sb = await startSandbox(options);
  const info = sb.info;
  const keys = Object.fromEntries(info.keys.map((k) => [k.name, k])) as Record<KeyName, ReadyKey>;
  return {
    baseUrl: info.baseUrl,
    adminUrl: info.adminUrl,
    keys,
    async api(method, path, opts = {}) {
      const headers: Record<string, string> = {};
      const auth = opts.auth === undefined ? `Bearer ${keys[opts.as ?? 'full'].apiKey}` : opts.auth;
      if (auth !== null) headers.Authorization = auth;
      if (opts.idem !== undefined) headers['Idempotency-Key'] = opts.idem;
      let body: string | Buffer | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['Content-Type'] = 'application/json';
      }
      Object.assign(headers, opts.headers);
      return toRes(await fetch(`${info.baseUrl}${path}`, { method, headers, body }));
    },
    async admin(method, path, body) {
      return toRes(
        await fetch(`${info.adminUrl}${path}`, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    },
    close: () => sb.close(),
  };
}

interface Hook {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Json;
}
interface Receiver {
  url: string;
  got: Hook[];
  status: number;
  close(): Promise<void>;
}
async function receiver(status = 200): Promise<Receiver> {
  const rec: Receiver = { url: '', got: [], status, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      rec.got.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(rec.status);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  rec.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return rec;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(10);
}

/** Independent verification of Svc-Signature (openapi/openapi.yaml, Svc-Signature). */
function verifySignature(header: string | undefined, raw: string, secret: string): boolean {
  if (header === undefined) return false;
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1s = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (t === undefined || v1s.length === 0 || !/^\d+$/.test(t)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(t)) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${raw}`).digest();
  return v1s.some((v) => {
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
let seq = 0;
const ik = (): string => `bb-${Date.now()}-${++seq}`;

function expectProblem(res: Res, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  expect(typeof res.body.type).toBe('string');
  expect(typeof res.body.title).toBe('string');
  expect(res.body.status).toBe(status);
  expect(typeof res.body.code).toBe('string');
  expect(res.body.code).toMatch(/^[a-z][a-z0-9_]*$/);
  if (code !== undefined) expect(res.body.code).toBe(code);
}

function expectFieldError(res: Res, field: string, code: string): void {
  expectProblem(res, 400, 'invalid_request');
  expect(Array.isArray(res.body.errors)).toBe(true);
  for (const e of res.body.errors) {
    expect(typeof e.field).toBe('string');
    expect(typeof e.code).toBe('string');
    expect(typeof e.message).toBe('string');
  }
  expect(res.body.errors, res.text).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
}

/** Discovered seed: brands, campaigns, stores and gifts, found through the API only. */
interface World {
  lucky: string; // the `links` key's brand
  otherBrand: string; // a brand the `links` key cannot use
  twoBrand: Json; // ACTIVE campaign with two brands (one of them lucky)
  expiring: Json; // ACTIVE campaign with future expiresAt
  completed: Json;
  live: Json; // summary of the LIVE store
  scheduled: Json;
  store: Json; // LIVE store read for lucky + DE
  gifts: Json[];
  optionGift: Json; // gift with two dimensions
  plainGift: Json; // gift without options
}

async function discover(box: Box): Promise<World> {
  const lucky = box.keys.links.brandIds[0];
  const me = (await box.api('GET', '/me')).body;
  const otherBrand = me.brands.map((b: Json) => b.id).find((id: string) => id !== lucky);
  const campaigns = (await box.api('GET', '/campaigns?limit=100')).body.items;
  const twoBrand = campaigns.find((c: Json) => c.brandIds.length === 2 && c.brandIds.includes(lucky));
  const expiring = campaigns.find((c: Json) => c.expiresAt !== null);
  const completed = (await box.api('GET', '/campaigns?status=COMPLETED')).body.items[0];
  const stores = (await box.api('GET', '/reward-stores')).body.items;
  const live = stores.find((s: Json) => s.phase === 'LIVE');
  const scheduled = stores.find((s: Json) => s.phase === 'SCHEDULED');
  const store = (await box.api('GET', `/reward-stores/${live.id}?brandId=${lucky}&country=DE`)).body;
  const gifts = store.sections.flatMap((s: Json) => s.items);
  return {
    lucky,
    otherBrand,
    twoBrand,
    expiring,
    completed,
    live,
    scheduled,
    store,
    gifts,
    optionGift: gifts.find((g: Json) => g.dimensions.length === 2),
    plainGift: gifts.find((g: Json) => g.dimensions.length === 0),
  };
}

function recipient(country = 'DE'): Json {
  return {
    name: 'Rita Recipient',
    email: 'rita.recipient@example.org',
    phone: '+4915112345678',
    address: { street: 'Geheimstrasse 42', city: 'Berlin', postalCode: '10115', country },
  };
}
function order(w: World, gift: Json = w.plainGift, extra: Json = {}): Json {
  return { storeId: w.live.id, brandId: w.lucky, productId: gift.productId, variations: {}, coinPrice: gift.coinPrice, recipient: recipient(), ...extra };
}
async function newLink(box: Box, w: World, as: KeyName = 'full', extra: Json = {}): Promise<Json> {
  const res = await box.api('POST', '/personal-links', { as, idem: ik(), body: { campaignId: w.expiring.id, fullName: 'Pat Player', ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function feedAll(box: Box, as: KeyName = 'full'): Promise<Json[]> {
  const items: Json[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page: Res = await box.api('GET', `/events?limit=100${after === null ? '' : `&after=${encodeURIComponent(after)}`}`, { as });
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    if (page.body.items.length === 0) break;
    after = page.body.nextCursor;
  }
  return items;
}
const eventsFor = (events: Json[], id: string, type?: string): Json[] => events.filter((e) => e.data.id === id && (type === undefined || e.type === type));

/* ------------------------------------------------------------------------------------------- */

describe('Authentication', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  test('ready line: four keys with svc_live_ keys, scopes, brands and 64-hex secrets', () => {
    expect(box.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(box.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_sandbox$/);
    for (const name of ['full', 'other', 'links', 'stores'] as const) {
      expect(box.keys[name].apiKey).toMatch(/^svc_live_\S+$/);
      expect(box.keys[name].webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(box.keys.links.scopes).toEqual(['PERSONAL_LINKS']);
    expect(box.keys.links.brandIds).toHaveLength(1);
    expect(box.keys.stores.scopes).toEqual(['REWARD_STORES']);
    expect([...box.keys.full.scopes].sort()).toEqual(['PERSONAL_LINKS', 'REWARD_STORES']);
  });

  test.each([
    ['missing', null],
    ['empty', ''],
    ['not Bearer', `Basic dXNlcjpwYXNz`],
    ['no prefix', 'Bearer abcdef0123456789'],
    ['Bearer only', 'Bearer'],
    ['unknown key', 'Bearer svc_live_thisKeyDoesNotExist000000000000'],
  ])('401 invalid_api_key: %s', async (_name, auth) => {
    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/campaigns'],
      ['POST', '/personal-links'],
      ['GET', '/events'],
      ['POST', '/webhooks:test'],
    ]) {
      expectProblem(await box.api(method, path, { auth }), 401, 'invalid_api_key');
    }
  });

  test('403 insufficient_scope per endpoint; /me, /events and /webhooks:test need no scope', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const linkCalls: [string, string][] = [
      ['GET', '/campaigns'],
      ['GET', '/personal-links'],
      ['POST', '/personal-links'],
      ['GET', `/personal-links/${uuid}`],
      ['POST', `/personal-links/${uuid}:cancel`],
    ];
    const storeCalls: [string, string][] = [
      ['GET', '/reward-stores'],
      ['GET', `/reward-stores/${w.live.id}?brandId=${w.lucky}&country=DE`],
      ['POST', '/reward-store-orders'],
      ['GET', '/reward-store-orders'],
      ['GET', `/reward-store-orders/${uuid}`],
    ];
    const opts = (m: string) => (m === 'POST' ? { idem: ik(), body: {} } : {});
    for (const [m, p] of linkCalls) expectProblem(await box.api(m, p, { as: 'stores', ...opts(m) }), 403, 'insufficient_scope');
    for (const [m, p] of storeCalls) expectProblem(await box.api(m, p, { as: 'links', ...opts(m) }), 403, 'insufficient_scope');
    for (const as of ['links', 'stores'] as const) {
      expect((await box.api('GET', '/me', { as })).status).toBe(200);
      expect((await box.api('GET', '/events', { as })).status).toBe(200);
      expect((await box.api('POST', '/webhooks:test', { as })).status).toBe(200);
    }
  });

  test('a key limited to one brand sees only that brand; other records are 404 not_found', async () => {
    const me = (await box.api('GET', '/me', { as: 'links' })).body;
    expect(me.brands.map((b: Json) => b.id)).toEqual([w.lucky]);
    const campaigns = (await box.api('GET', '/campaigns?limit=100', { as: 'links' })).body.items;
    expect(campaigns.length).toBeGreaterThan(0);
    for (const c of campaigns) expect(c.brandIds).toEqual([w.lucky]);
    const links = (await box.api('GET', '/personal-links?limit=100', { as: 'links' })).body.items;
    for (const l of links) expect(l.brandId).toBe(w.lucky);
    const foreign = await box.api('POST', '/personal-links', { idem: ik(), body: { campaignId: w.twoBrand.id, brandId: w.otherBrand, fullName: 'X' } });
    expect(foreign.status).toBe(201);
    expectProblem(await box.api('GET', `/personal-links/${foreign.body.id}`, { as: 'links' }), 404, 'not_found');
    const events = await feedAll(box, 'links');
    for (const e of events) expect(e.data.brandId).toBe(w.lucky);
    expect(eventsFor(events, foreign.body.id)).toHaveLength(0);
    // a brand the key cannot use is refused as campaign_not_found
    const refused = await box.api('POST', '/personal-links', { as: 'links', idem: ik(), body: { campaignId: w.twoBrand.id, brandId: w.otherBrand, fullName: 'X' } });
    expectProblem(refused, 422, 'campaign_not_found');
  });

  test('non-UUID path ids and unknown ids are 404 not_found', async () => {
    for (const path of ['/personal-links/not-a-uuid', '/personal-links/123', '/reward-store-orders/xyz', `/reward-stores/nope?brandId=${w.lucky}&country=DE`]) {
      expectProblem(await box.api('GET', path), 404, 'not_found');
    }
    expectProblem(await box.api('POST', '/personal-links/not-a-uuid:cancel', { body: { reason: 'r' } }), 404, 'not_found');
    const unknown = '11111111-2222-4333-8444-555555555555';
    expectProblem(await box.api('GET', `/personal-links/${unknown}`), 404, 'not_found');
    expectProblem(await box.api('GET', `/reward-store-orders/${unknown}`), 404, 'not_found');
    expectProblem(await box.api('GET', `/reward-stores/${unknown}?brandId=${w.lucky}&country=DE`), 404, 'not_found');
    expectProblem(await box.api('POST', `/personal-links/${unknown}:cancel`, { body: { reason: 'r' } }), 404, 'not_found');
  });

  test('revoked key and API access off are 401; events are still recorded while off', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      expect((await b.admin('PATCH', '/keys/other', { revoked: true })).status).toBe(200);
      expectProblem(await b.api('GET', '/me', { as: 'other' }), 401, 'invalid_api_key');
      expect((await b.api('GET', '/me')).status).toBe(200);
      const link = await newLink(b, bw);
      expect((await b.admin('PATCH', '/settings', { apiAccess: false })).status).toBe(200);
      for (const [m, p] of [
        ['GET', '/me'],
        ['GET', '/reward-stores'],
        ['GET', '/events'],
        ['POST', '/webhooks:test'],
      ]) {
        expectProblem(await b.api(m, p, { as: 'full' }), 401, 'invalid_api_key');
      }
      expect((await b.admin('POST', `/links/${link.id}/claim`)).status).toBe(200);
      expect((await b.admin('PATCH', '/settings', { apiAccess: true })).status).toBe(200);
      const events = await feedAll(b);
      expect(eventsFor(events, link.id, 'personal_link.claimed')).toHaveLength(1);
    } finally {
      await b.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Resources', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  test('GET /me: tenant, key, brands, environment', async () => {
    const me = await box.api('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('content-type')).toMatch(/^application\/json/);
    const { tenant, key, brands, environment } = me.body;
    expect(environment).toBe('production');
    expect(tenant.id).toMatch(UUID);
    expect(tenant.locales).toEqual(expect.arrayContaining(['en-US', 'de-DE']));
    expect(typeof tenant.approvalRequired).toBe('boolean');
    expect(new Set(tenant.customFields.map((f: Json) => f.type))).toEqual(new Set(['TEXT', 'CHECKBOX', 'DROPDOWN']));
    for (const f of tenant.customFields) {
      expect(f.id).toMatch(UUID);
      expect(typeof f.label).toBe('string');
      expect(typeof f.required).toBe('boolean');
      expect(Array.isArray(f.options)).toBe(true);
      if (f.type !== 'DROPDOWN') expect(f.options).toEqual([]);
      else expect(f.options.length).toBeGreaterThan(0);
    }
    expect(key).toEqual({ name: 'full', scopes: expect.any(Array), webhookUrl: null });
    expect(brands.length).toBeGreaterThanOrEqual(3);
    for (const b of brands) expect(Object.keys(b).sort()).toEqual(['id', 'name']);
  });

  test('Campaign fields; ACTIVE default excludes completed ones; COMPLETED lists them; sorted by name', async () => {
    const active = (await box.api('GET', '/campaigns?limit=100')).body;
    expect(active.nextCursor).toBeNull();
    for (const c of active.items) {
      expect(Object.keys(c).sort()).toEqual(['brandIds', 'expiresAt', 'id', 'name', 'status']);
      expect(c.id).toMatch(UUID);
      expect(c.status).toBe('ACTIVE');
      if (c.expiresAt !== null) expect(c.expiresAt).toMatch(TS);
    }
    const names = active.items.map((c: Json) => c.name);
    expect(names).toEqual([...names].sort());
    const completed = (await box.api('GET', '/campaigns?status=COMPLETED')).body.items;
    expect(completed.length).toBeGreaterThan(0);
    for (const c of completed) expect(c.status).toBe('COMPLETED');
    const filtered = (await box.api('GET', `/campaigns?brandId=${w.otherBrand}&limit=100`)).body.items;
    for (const c of filtered) expect(c.brandIds).toContain(w.otherBrand);
  });

  test('PersonalLink: every field present, nullable ones null, answers for every field', async () => {
    const me = (await box.api('GET', '/me')).body;
    const link = await newLink(box, w);
    expect(Object.keys(link).sort()).toEqual(
      ['approvedAt', 'brandId', 'campaignId', 'cancelledAt', 'claimUrl', 'claimedAt', 'createdAt', 'customFields', 'expiresAt', 'id', 'selection', 'status', 'updatedAt'].sort(),
    );
    expect(link).toMatchObject({ campaignId: w.expiring.id, selection: null, brandId: w.lucky, status: 'ACTIVE', approvedAt: null, claimedAt: null, cancelledAt: null });
    expect(link.expiresAt).toBe(w.expiring.expiresAt);
    expect(link.createdAt).toMatch(TS);
    expect(link.updatedAt).toMatch(TS);
    expect(typeof link.claimUrl).toBe('string');
    expect(link.customFields).toHaveLength(me.tenant.customFields.length);
    for (const a of link.customFields) expect(a).toEqual({ fieldId: expect.stringMatching(UUID), textValue: null, checked: null });
    const read = await box.api('GET', `/personal-links/${link.id}`);
    expect(read.body).toEqual(link);
  });

  test('a team CATALOG link: campaignId null, selection CATALOG, listed with its own answers', async () => {
    const created = await box.admin('POST', '/links', { brandId: w.lucky, fullName: 'Team Pick' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ campaignId: null, selection: 'CATALOG', expiresAt: null });
    const listed = (await box.api('GET', '/personal-links?limit=100')).body.items;
    expect(listed.map((l: Json) => l.id)).toContain(created.body.id);
  });

  test('custom field answers are echoed by type', async () => {
    const fields = (await box.api('GET', '/me')).body.tenant.customFields;
    const text = fields.find((f: Json) => f.type === 'TEXT');
    const drop = fields.find((f: Json) => f.type === 'DROPDOWN');
    const box2 = fields.find((f: Json) => f.type === 'CHECKBOX');
    const link = await newLink(box, w, 'full', {
      customFields: [
        { fieldId: text.id, textValue: 'P-1' },
        { fieldId: drop.id, textValue: drop.options[0] },
        { fieldId: box2.id, checked: true },
        { fieldId: '99999999-9999-4999-8999-999999999999', textValue: 'ignored' },
      ],
      undefinedField: 'ignored',
    });
    const byId = Object.fromEntries(link.customFields.map((a: Json) => [a.fieldId, a]));
    expect(link.customFields).toHaveLength(fields.length);
    expect(byId[text.id]).toEqual({ fieldId: text.id, textValue: 'P-1', checked: null });
    expect(byId[drop.id]).toEqual({ fieldId: drop.id, textValue: drop.options[0], checked: null });
    expect(byId[box2.id]).toEqual({ fieldId: box2.id, textValue: null, checked: true });
  });

  test('store summary, store read, gifts, images (no key needed)', async () => {
    const list = (await box.api('GET', '/reward-stores')).body;
    const names = list.items.map((s: Json) => s.name);
    expect(names).toEqual([...names].sort());
    for (const s of list.items) {
      expect(Object.keys(s).sort()).toEqual(['brandIds', 'endsAt', 'id', 'name', 'phase', 'startsAt']);
      expect(['SCHEDULED', 'LIVE']).toContain(s.phase);
      for (const t of [s.startsAt, s.endsAt]) if (t !== null) expect(t).toMatch(TS);
    }
    const s = w.store;
    expect(Object.keys(s).sort()).toEqual(
      ['banner', 'brand', 'country', 'currency', 'description', 'endsAt', 'id', 'locale', 'name', 'phase', 'sections', 'startsAt'].sort(),
    );
    expect(s).toMatchObject({ id: w.live.id, phase: 'LIVE', country: 'DE', locale: 'en-US' });
    expect(Object.keys(s.brand).sort()).toEqual(['id', 'name']);
    expect(s.brand.id).toBe(w.lucky);
    expect(typeof s.currency.name).toBe('string');
    expect(typeof s.currency.symbol).toBe('string');
    expect(s.sections.length).toBeGreaterThan(1);
    for (const section of s.sections) {
      expect(section.id).toMatch(UUID);
      expect(typeof section.name).toBe('string');
      expect(section.items.length).toBeGreaterThan(0);
    }
    const images: Json[] = s.banner === null ? [] : [s.banner];
    for (const g of w.gifts) {
      expect(Object.keys(g).sort()).toEqual(['coinPrice', 'combinations', 'description', 'dimensions', 'gallery', 'name', 'productId', 'thumbnail'].sort());
      expect(g.coinPrice).toMatch(/^\d+(\.\d+)?$/);
      expect(Array.isArray(g.gallery)).toBe(true);
      if (g.dimensions.length === 0) expect(g.combinations).toEqual([]);
      for (const d of g.dimensions) {
        expect(typeof d.name).toBe('string');
        expect(typeof d.label).toBe('string');
        for (const v of d.values) expect(Object.keys(v).sort()).toEqual(['label', 'value']);
      }
      for (const c of g.combinations) {
        expect(Object.keys(c.variations).sort()).toEqual(g.dimensions.map((d: Json) => d.name).sort());
      }
      if (g.thumbnail !== null) images.push(g.thumbnail);
      images.push(...g.gallery);
    }
    expect(images.length).toBeGreaterThan(0);
    for (const img of images) {
      expect(typeof img.url).toBe('string');
      const widths = img.variants.map((v: Json) => v.width);
      expect(widths).toEqual([...widths].sort((a: number, b: number) => a - b));
      for (const v of img.variants) expect(Number.isInteger(v.width)).toBe(true);
    }
    const opened = await fetch(images[0].url);
    expect(opened.status).toBe(200);
    // a sold-out combination is left out of combinations
    const g = w.optionGift;
    expect(g.combinations.length).toBeLessThan(g.dimensions[0].values.length * g.dimensions[1].values.length);
  });

  test('store read in de-DE translates gift names; the store name stays as written', async () => {
    const de = (await box.api('GET', `/reward-stores/${w.live.id}?brandId=${w.lucky}&country=DE&locale=de-DE`)).body;
    expect(de.locale).toBe('de-DE');
    expect(de.name).toBe(w.store.name);
    const enNames = w.gifts.map((g: Json) => g.name);
    const deNames = de.sections.flatMap((s: Json) => s.items).map((g: Json) => g.name);
    expect(deNames).not.toEqual(enNames);
  });

  test('RewardStoreOrder: every field, price as placed, no address', async () => {
    const placed = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) });
    expect(placed.status, placed.text).toBe(201);
    const o = placed.body;
    expect(Object.keys(o).sort()).toEqual(
      ['brandId', 'coinPrice', 'createdAt', 'currency', 'customFields', 'deliveryCountry', 'id', 'productId', 'productName', 'reference', 'shipment', 'status', 'storeId', 'updatedAt', 'variations'].sort(),
    );
    expect(o).toMatchObject({ storeId: w.live.id, brandId: w.lucky, productId: w.plainGift.productId, productName: w.plainGift.name, variations: {}, status: 'PROCESSING', coinPrice: w.plainGift.coinPrice, deliveryCountry: 'DE', shipment: null });
    expect(o.currency).toEqual(w.store.currency);
    expect(typeof o.reference).toBe('string');
    expect(o.createdAt).toMatch(TS);
    expect(o.updatedAt).toMatch(TS);
    expect((await box.api('GET', `/reward-store-orders/${o.id}`)).body).toEqual(o);
    // an order with options
    const combo = w.optionGift.combinations[0].variations;
    const withOptions = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w, w.optionGift, { variations: combo, locale: 'de-DE' }) });
    expect(withOptions.status, withOptions.text).toBe(201);
    expect(withOptions.body.variations).toEqual(combo);
    expect(withOptions.body.productName).not.toBe(w.optionGift.name);
  });

  test('Event envelope', async () => {
    const events = await feedAll(box);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(['data', 'environment', 'id', 'occurredAt', 'type']);
      expect(e.id).toMatch(UUID);
      expect(e.occurredAt).toMatch(TS);
      expect(e.environment).toBe('production');
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('States and transitions', () => {
  test('links: created → approved → claimed, cancelled, expired; one event each', async () => {
    const box = await boot({ approvalRequired: true });
    try {
      const w = await discover(box);
      expect((await box.api('GET', '/me')).body.tenant.approvalRequired).toBe(true);
      const a = await newLink(box, w);
      expect(a.status).toBe('REQUESTED');
      const claimRequested = await box.admin('POST', `/links/${a.id}/claim`);
      expect(claimRequested.status).toBeGreaterThanOrEqual(400);
      const approved = await box.admin('POST', `/links/${a.id}/approve`);
      expect(approved.status).toBe(200);
      let read = (await box.api('GET', `/personal-links/${a.id}`)).body;
      expect(read.status).toBe('ACTIVE');
      expect(read.approvedAt).toMatch(TS);
      expect((await box.admin('POST', `/links/${a.id}/claim`)).status).toBe(200);
      read = (await box.api('GET', `/personal-links/${a.id}`)).body;
      expect(read.status).toBe('CLAIMED');
      expect(read.claimedAt).toMatch(TS);
      const notC = await box.api('POST', `/personal-links/${a.id}:cancel`, { body: { reason: 'late' } });
      expectProblem(notC, 409, 'not_cancellable');
      expect(notC.body.currentStatus).toBe('CLAIMED');

      // cancel a REQUESTED link, then again: 200 unchanged, no second event
      const b = await newLink(box, w);
      const cancelled = await box.api('POST', `/personal-links/${b.id}:cancel`, { body: { reason: 'first' } });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect(cancelled.body.cancelledAt).toMatch(TS);
      expect(cancelled.body.updatedAt).toBe(cancelled.body.cancelledAt);
      expect(Date.parse(cancelled.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(cancelled.body.createdAt));
      const again = await box.api('POST', `/personal-links/${b.id}:cancel`, { body: { reason: 'second' } });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(cancelled.body);

      // a link the team creates also starts REQUESTED
      const team = await box.admin('POST', '/links', { campaignId: w.expiring.id, brandId: w.lucky, fullName: 'Team' });
      expect(team.body.status).toBe('REQUESTED');
      // expire with the campaign
      const c = await newLink(box, w);
      const complete = await box.admin('POST', `/campaigns/${w.expiring.id}/complete`);
      expect(complete.status).toBe(200);
      read = (await box.api('GET', `/personal-links/${c.id}`)).body;
      expect(read.status).toBe('EXPIRED');
      const notE = await box.api('POST', `/personal-links/${c.id}:cancel`, { body: { reason: 'x' } });
      expectProblem(notE, 409, 'not_cancellable');
      expect(notE.body.currentStatus).toBe('EXPIRED');
      // the claimed and cancelled links are not expired
      expect((await box.api('GET', `/personal-links/${a.id}`)).body.status).toBe('CLAIMED');
      expect((await box.api('GET', `/personal-links/${b.id}`)).body.status).toBe('CANCELLED');

      const events = await feedAll(box);
      const types = (id: string) => eventsFor(events, id).map((e) => e.type);
      expect(types(a.id)).toEqual(['personal_link.created', 'personal_link.approved', 'personal_link.claimed']);
      expect(types(b.id)).toEqual(['personal_link.created', 'personal_link.cancelled']);
      expect(types(c.id)).toEqual(['personal_link.created', 'personal_link.expired']);
      expect(eventsFor(events, a.id, 'personal_link.created')[0].data.status).toBe('REQUESTED');
      expect(eventsFor(events, a.id, 'personal_link.approved')[0].data.status).toBe('ACTIVE');
      expect(eventsFor(events, a.id, 'personal_link.claimed')[0].data.status).toBe('CLAIMED');
      expect(eventsFor(events, c.id, 'personal_link.expired')[0].data.status).toBe('EXPIRED');

      // the completed campaign refuses links and is listed as COMPLETED
      const refused = await box.api('POST', '/personal-links', { idem: ik(), body: { campaignId: w.expiring.id, fullName: 'Late' } });
      expectProblem(refused, 422, 'campaign_not_active');
      const completed = (await box.api('GET', '/campaigns?status=COMPLETED')).body.items.map((x: Json) => x.id);
      expect(completed).toContain(w.expiring.id);
      expect((await box.api('GET', '/campaigns')).body.items.map((x: Json) => x.id)).not.toContain(w.expiring.id);
    } finally {
      await box.close();
    }
  });

  test('campaign passes its expiresAt on the clock: completes, open links expire', async () => {
    const box = await boot();
    try {
      const w = await discover(box);
      const link = await newLink(box, w);
      const seconds = Math.ceil((Date.parse(w.expiring.expiresAt) - Date.now()) / 1000) + 5;
      expect((await box.admin('POST', '/clock', { advanceSeconds: seconds })).status).toBe(200);
      expect((await box.api('GET', `/personal-links/${link.id}`)).body.status).toBe('EXPIRED');
      expect((await box.api('GET', '/campaigns')).body.items.map((c: Json) => c.id)).not.toContain(w.expiring.id);
      const events = await feedAll(box);
      expect(eventsFor(events, link.id, 'personal_link.expired')).toHaveLength(1);
    } finally {
      await box.close();
    }
  });

  test('orders: approve/reject/ship/deliver/cancel, each order.* event at most once', async () => {
    const box = await boot({ approvalRequired: true });
    try {
      const w = await discover(box);
      const place = async () => {
        const r = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) });
        expect(r.status, r.text).toBe(201);
        expect(r.body.status).toBe('REQUESTED');
        return r.body;
      };
      const a = await place();
      expect((await box.admin('POST', `/orders/${a.id}/approve`)).status).toBe(200);
      expect((await box.api('GET', `/reward-store-orders/${a.id}`)).body.status).toBe('PROCESSING');
      await box.admin('POST', `/orders/${a.id}/approve`); // a second approval changes nothing
      const shipped = await box.admin('POST', `/orders/${a.id}/ship`, { carrier: 'DHL', trackingReference: 'T1', trackingUrl: 'https://t.example/T1' });
      expect(shipped.status).toBe(200);
      let read = (await box.api('GET', `/reward-store-orders/${a.id}`)).body;
      expect(read.status).toBe('SENT');
      expect(read.shipment).toEqual({ carrier: 'DHL', trackingReference: 'T1', trackingUrl: 'https://t.example/T1' });
      await box.admin('POST', `/orders/${a.id}/ship`, {});
      expect((await box.admin('POST', `/orders/${a.id}/deliver`)).status).toBe(200);
      await box.admin('POST', `/orders/${a.id}/deliver`);
      read = (await box.api('GET', `/reward-store-orders/${a.id}`)).body;
      expect(read.status).toBe('COMPLETED');

      const b = await place();
      expect((await box.admin('POST', `/orders/${b.id}/reject`)).status).toBe(200);
      expect((await box.api('GET', `/reward-store-orders/${b.id}`)).body.status).toBe('CANCELLED');
      await box.admin('POST', `/orders/${b.id}/cancel`);
      await box.admin('POST', `/orders/${b.id}/reject`);

      const c = await place();
      await box.admin('POST', `/orders/${c.id}/approve`);
      expect((await box.admin('POST', `/orders/${c.id}/cancel`)).status).toBe(200);
      expect((await box.api('GET', `/reward-store-orders/${c.id}`)).body.status).toBe('CANCELLED');
      await box.admin('POST', `/orders/${c.id}/cancel`);

      const ship = await box.admin('POST', `/orders/${b.id}/ship`, {});
      expect(ship.status).toBeGreaterThanOrEqual(400);

      const events = await feedAll(box);
      const types = (id: string) => eventsFor(events, id).map((e) => e.type);
      expect(types(a.id)).toEqual(['order.approved', 'order.sent', 'order.completed']);
      expect(types(b.id)).toEqual(['order.cancelled']);
      expect(types(c.id)).toEqual(['order.approved', 'order.cancelled']);
      expect(eventsFor(events, a.id, 'order.approved')[0].data.status).toBe('PROCESSING');
      expect(eventsFor(events, a.id, 'order.sent')[0].data.shipment.carrier).toBe('DHL');
      expect(eventsFor(events, a.id, 'order.completed')[0].data.status).toBe('COMPLETED');
      expect(eventsFor(events, b.id, 'order.cancelled')[0].data.status).toBe('CANCELLED');
      // a key cannot cancel an order: there is no such endpoint
      const viaApi = await box.api('POST', `/reward-store-orders/${a.id}:cancel`, { body: {} });
      expect([404, 405]).toContain(viaApi.status);
    } finally {
      await box.close();
    }
  });

  test('store: SCHEDULED takes no orders, becomes LIVE on the clock', async () => {
    const box = await boot();
    try {
      const w = await discover(box);
      const brand = w.scheduled.brandIds[0];
      const read = (await box.api('GET', `/reward-stores/${w.scheduled.id}?brandId=${brand}&country=DE`)).body;
      expect(read.phase).toBe('SCHEDULED');
      const gift = read.sections[0].items[0];
      const body = { ...order(w, gift), storeId: w.scheduled.id, brandId: brand };
      expectProblem(await box.api('POST', '/reward-store-orders', { idem: ik(), body }), 422, 'reward_store_not_live');
      const seconds = Math.ceil((Date.parse(w.scheduled.startsAt) - Date.now()) / 1000) + 5;
      await box.admin('POST', '/clock', { advanceSeconds: seconds });
      const after = (await box.api('GET', '/reward-stores')).body.items.find((s: Json) => s.id === w.scheduled.id);
      expect(after.phase).toBe('LIVE');
      const placed = await box.api('POST', '/reward-store-orders', { idem: ik(), body });
      expect(placed.status, placed.text).toBe(201);
    } finally {
      await box.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Validation', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  test('list query parameters: limit, after, brandId, status, campaignId, storeId', async () => {
    for (const path of ['/campaigns', '/personal-links', '/reward-stores', '/reward-store-orders', '/events']) {
      for (const limit of ['0', '101', 'abc', '1.5', '-1']) expectFieldError(await box.api('GET', `${path}?limit=${limit}`), 'limit', 'invalid');
      expectFieldError(await box.api('GET', `${path}?after=%21%21garbage`), 'after', 'invalid');
      expect((await box.api('GET', `${path}?limit=1`)).status).toBe(200);
      expect((await box.api('GET', `${path}?limit=100`)).status).toBe(200);
    }
    for (const path of ['/campaigns', '/personal-links', '/reward-stores', '/reward-store-orders']) {
      expectFieldError(await box.api('GET', `${path}?brandId=nope`), 'brandId', 'invalid');
    }
    expectFieldError(await box.api('GET', '/campaigns?status=OPEN'), 'status', 'invalid');
    expectFieldError(await box.api('GET', '/personal-links?status=OPEN'), 'status', 'invalid');
    expectFieldError(await box.api('GET', '/reward-store-orders?status=SHIPPED'), 'status', 'invalid');
    expectFieldError(await box.api('GET', '/personal-links?campaignId=nope'), 'campaignId', 'invalid');
    expectFieldError(await box.api('GET', '/reward-store-orders?storeId=nope'), 'storeId', 'invalid');
    // a cursor of another list is unknown here
    const camp = (await box.api('GET', '/campaigns?limit=1')).body.nextCursor;
    expect(typeof camp).toBe('string');
    expectFieldError(await box.api('GET', `/personal-links?after=${encodeURIComponent(camp)}`), 'after', 'invalid');
    expect((await box.api('GET', '/personal-links?status=ACTIVE')).body.items.every((l: Json) => l.status === 'ACTIVE')).toBe(true);
  });

  test('POST /personal-links body rules', async () => {
    const post = (body: unknown) => box.api('POST', '/personal-links', { idem: ik(), body });
    const empty = await post({});
    expectFieldError(empty, 'campaignId', 'required');
    expectFieldError(empty, 'fullName', 'required');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: '   ' }), 'fullName', 'required');
    expectFieldError(await post({ campaignId: 'nope', fullName: 'P' }), 'campaignId', 'invalid');
    expectFieldError(await post({ campaignId: w.twoBrand.id, fullName: 'P' }), 'brandId', 'required');
    expectFieldError(await post({ campaignId: w.twoBrand.id, brandId: 'nope', fullName: 'P' }), 'brandId', 'invalid');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'x'.repeat(256) }), 'fullName', 'too_long');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'P', message: 'x'.repeat(256) }), 'message', 'too_long');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'P', email: `${'x'.repeat(250)}@example.org` }), 'email', 'too_long');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'P', email: 'not-an-address' }), 'email', 'invalid');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'P', locale: 'fr-FR' }), 'locale', 'not_enabled');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 123 }), 'fullName', 'invalid');
    expectFieldError(await post({ campaignId: w.expiring.id, fullName: 'P', customFields: [{ fieldId: 'nope', textValue: 'a' }] }), 'customFields[0].fieldId', 'invalid');
    const fields = (await box.api('GET', '/me')).body.tenant.customFields;
    const drop = fields.find((f: Json) => f.type === 'DROPDOWN');
    const text = fields.find((f: Json) => f.type === 'TEXT');
    const bad = await post({ campaignId: w.expiring.id, fullName: 'P', customFields: [{ fieldId: drop.id, textValue: 'Not an option' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.some((e: Json) => e.field.startsWith('customFields') && e.code === 'invalid')).toBe(true);
    const long = await post({ campaignId: w.expiring.id, fullName: 'P', customFields: [{ fieldId: text.id, textValue: 'x'.repeat(1001) }] });
    expect(long.status).toBe(400);
    expect(long.body.errors.some((e: Json) => e.field.startsWith('customFields') && e.code === 'too_long')).toBe(true);
    // at the limits it passes
    const ok = await post({ campaignId: w.expiring.id, fullName: 'x'.repeat(255), message: 'm'.repeat(255), locale: 'de-DE', customFields: [{ fieldId: text.id, textValue: 'x'.repeat(1000) }] });
    expect(ok.status, ok.text).toBe(201);
    // invalid JSON and a non-object body
    const broken = await box.api('POST', '/personal-links', { idem: ik(), raw: '{"campaignId": ', headers: { 'Content-Type': 'application/json' } });
    expectProblem(broken, 400, 'invalid_request');
    expectProblem(await post([1, 2]), 400, 'invalid_request');
    // refusals
    expectProblem(await post({ campaignId: '12345678-1234-4234-8234-123456789012', fullName: 'P' }), 422, 'campaign_not_found');
    expectProblem(await post({ campaignId: w.completed.id, fullName: 'P', brandId: w.lucky }), 422, 'campaign_not_active');
    const wrongBrand = w.twoBrand.brandIds.includes(w.otherBrand) ? (await box.api('GET', '/me')).body.brands.map((b: Json) => b.id).find((id: string) => !w.twoBrand.brandIds.includes(id)) : w.otherBrand;
    expectProblem(await post({ campaignId: w.twoBrand.id, brandId: wrongBrand, fullName: 'P' }), 422, 'campaign_not_found');
    // the links key can use only one of the two brands: brandId not needed
    const single = await box.api('POST', '/personal-links', { as: 'links', idem: ik(), body: { campaignId: w.twoBrand.id, fullName: 'P' } });
    expect(single.status, single.text).toBe(201);
    expect(single.body.brandId).toBe(w.lucky);
  });

  test('POST /personal-links/{id}:cancel body rules', async () => {
    const link = await newLink(box, w);
    expectFieldError(await box.api('POST', `/personal-links/${link.id}:cancel`, { body: {} }), 'reason', 'required');
    expectFieldError(await box.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'x'.repeat(1001) } }), 'reason', 'too_long');
    const elsewhere = await box.api('POST', `/personal-links/${link.id}:cancel`, { as: 'other', body: { reason: 'no' } });
    expectProblem(elsewhere, 409, 'not_cancellable');
    expect(elsewhere.body.reason).toBe('created_elsewhere');
    const team = (await box.admin('POST', '/links', { campaignId: w.expiring.id, brandId: w.lucky, fullName: 'T' })).body;
    const teamCancel = await box.api('POST', `/personal-links/${team.id}:cancel`, { body: { reason: 'no' } });
    expect(teamCancel.body.reason).toBe('created_elsewhere');
    expect((await box.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'x'.repeat(1000) } })).status).toBe(200);
  });

  test('GET /reward-stores/{id} query rules', async () => {
    const base = `/reward-stores/${w.live.id}`;
    const none = await box.api('GET', base);
    expectFieldError(none, 'brandId', 'required');
    expectFieldError(none, 'country', 'required');
    expectFieldError(await box.api('GET', `${base}?brandId=nope&country=DE`), 'brandId', 'invalid');
    expectFieldError(await box.api('GET', `${base}?brandId=${w.lucky}&country=Germany`), 'country', 'invalid');
    expectFieldError(await box.api('GET', `${base}?brandId=${w.lucky}&country=DE&locale=fr-FR`), 'locale', 'not_enabled');
    expectFieldError(await box.api('GET', `${base}?brandId=${w.lucky}&country=DE&locale=%21%21`), 'locale', 'invalid');
    // a brand that is not one of the store's: 404
    const notStoreBrand = (await box.api('GET', '/me')).body.brands.map((b: Json) => b.id).find((id: string) => !w.scheduled.brandIds.includes(id));
    expectProblem(await box.api('GET', `/reward-stores/${w.scheduled.id}?brandId=${notStoreBrand}&country=DE`), 404, 'not_found');
    expectProblem(await box.api('GET', `${base}?brandId=12345678-1234-4234-8234-123456789012&country=DE`), 404, 'not_found');
  });

  test('POST /reward-store-orders body rules and refusals', async () => {
    const post = (body: unknown, as: KeyName = 'full') => box.api('POST', '/reward-store-orders', { as, idem: ik(), body });
    const empty = await post({});
    for (const f of ['storeId', 'brandId', 'productId', 'coinPrice', 'recipient']) expectFieldError(empty, f, 'required');
    const r = (patch: Json, addr: Json = {}) => order(w, w.plainGift, { recipient: { ...recipient(), ...patch, address: { ...recipient().address, ...addr } } });
    const noRecipientFields = await post(order(w, w.plainGift, { recipient: { address: {} } }));
    for (const f of ['recipient.name', 'recipient.phone', 'recipient.address.street', 'recipient.address.city', 'recipient.address.country']) expectFieldError(noRecipientFields, f, 'required');
    expectFieldError(await post(r({ phone: '015112345678' })), 'recipient.phone', 'invalid');
    expectFieldError(await post(r({ name: 'x'.repeat(101) })), 'recipient.name', 'too_long');
    expectFieldError(await post(r({ email: `${'x'.repeat(250)}@example.org` })), 'recipient.email', 'too_long');
    expectFieldError(await post(r({ email: 'nope' })), 'recipient.email', 'invalid');
    expectFieldError(await post(r({}, { street: 'x'.repeat(256) })), 'recipient.address.street', 'too_long');
    expectFieldError(await post(r({}, { city: 'x'.repeat(101) })), 'recipient.address.city', 'too_long');
    expectFieldError(await post(r({}, { postalCode: 'x'.repeat(21) })), 'recipient.address.postalCode', 'too_long');
    expectFieldError(await post(r({}, { postalCode: undefined })), 'recipient.address.postalCode', 'required');
    expectFieldError(await post(r({}, { country: 'Germany' })), 'recipient.address.country', 'invalid');
    expectFieldError(await post(order(w, w.plainGift, { additionalDetails: 'x'.repeat(2001) })), 'additionalDetails', 'too_long');
    expectFieldError(await post(order(w, w.plainGift, { locale: 'fr-FR' })), 'locale', 'not_enabled');
    expectFieldError(await post(order(w, w.plainGift, { storeId: 'nope' })), 'storeId', 'invalid');
    expectFieldError(await post(order(w, w.optionGift, { variations: { size: 'XXXL', color: 'plaid' } })), 'variations', 'invalid');
    // at the limits it passes
    const atLimit = await post(order(w, w.plainGift, { additionalDetails: 'd'.repeat(2000), recipient: { ...recipient(), name: 'n'.repeat(100), address: { street: 's'.repeat(255), city: 'c'.repeat(100), postalCode: 'p'.repeat(20), country: 'DE' } } }));
    expect(atLimit.status, atLimit.text).toBe(201);

    // a country without postal codes: HK (the plain gift must be sold there)
    const hk = (await box.api('GET', `/reward-stores/${w.live.id}?brandId=${w.lucky}&country=HK`)).body;
    const hkGifts = hk.sections.flatMap((s: Json) => s.items);
    const hkPlain = hkGifts.find((g: Json) => g.dimensions.length === 0);
    const noPostal = await post({ ...order(w, hkPlain), recipient: { ...recipient('HK'), address: { street: '1 Queen St', city: 'Hong Kong', country: 'HK' } } });
    expect(noPostal.status, noPostal.text).toBe(201);

    // the price is checked for the delivery country
    const us = (await box.api('GET', `/reward-stores/${w.live.id}?brandId=${w.lucky}&country=US`)).body.sections.flatMap((x: Json) => x.items);
    const differs = w.gifts.find((x: Json) => us.some((u: Json) => u.productId === x.productId && u.coinPrice !== x.coinPrice));
    if (differs !== undefined) {
      const usPrice = us.find((u: Json) => u.productId === differs.productId).coinPrice;
      const v = differs.combinations[0]?.variations ?? {};
      const wrongCountry = await post({ ...order(w, differs, { variations: v }), recipient: { ...recipient(), address: { ...recipient().address, postalCode: '10001', country: 'US' } } });
      expectProblem(wrongCountry, 409, 'price_changed');
      expect(wrongCountry.body.coinPrice).toBe(usPrice);
    }
    // refusals
    const price = await post(order(w, w.plainGift, { coinPrice: '1' }));
    expectProblem(price, 409, 'price_changed');
    expect(price.body.coinPrice).toBe(w.plainGift.coinPrice);
    const g = w.optionGift;
    const all = g.dimensions[0].values.flatMap((a: Json) => g.dimensions[1].values.map((b: Json) => ({ [g.dimensions[0].name]: a.value, [g.dimensions[1].name]: b.value })));
    const soldOut = all.find((v: Json) => !g.combinations.some((c: Json) => JSON.stringify(Object.entries(c.variations).sort()) === JSON.stringify(Object.entries(v).sort())));
    expect(soldOut).toBeDefined();
    expectProblem(await post(order(w, g, { variations: soldOut })), 409, 'out_of_stock');
    const notSoldHk = w.gifts.find((x: Json) => !hkGifts.some((h: Json) => h.productId === x.productId));
    const hkOrder = await post({ ...order(w, notSoldHk, { variations: notSoldHk.combinations[0]?.variations ?? {} }), recipient: { ...recipient('HK'), address: { street: '1 Queen St', city: 'Hong Kong', country: 'HK' } } });
    expectProblem(hkOrder, 422, 'gift_not_available');
    expect(hkOrder.body.reason).toBe('NOT_SOLD_IN_COUNTRY');
    const other = (await box.api('GET', `/reward-stores/${w.live.id}?brandId=${w.otherBrand}&country=DE`)).body.sections.flatMap((s: Json) => s.items);
    const luckyOnly = w.gifts.find((x: Json) => !other.some((o: Json) => o.productId === x.productId));
    const wrongBrand = await post({ ...order(w, luckyOnly), brandId: w.otherBrand });
    expectProblem(wrongBrand, 422, 'gift_not_available');
    expect(wrongBrand.body.reason).toBe('NOT_USABLE_BY_BRAND');
    const notInStore = await post(order(w, { productId: '12345678-1234-4234-8234-123456789012', coinPrice: '1' }));
    expectProblem(notInStore, 422, 'gift_not_available');
    expect(notInStore.body.reason).toBe('NOT_IN_STORE');
    expectProblem(await post({ ...order(w), storeId: '12345678-1234-4234-8234-123456789012' }), 422, 'reward_store_not_found');
    expectProblem(await post({ ...order(w), brandId: '12345678-1234-4234-8234-123456789012' }), 422, 'brand_not_found');
    const notScheduledBrand = (await box.api('GET', '/me')).body.brands.map((b: Json) => b.id).find((id: string) => !w.scheduled.brandIds.includes(id));
    expectProblem(await post({ ...order(w), storeId: w.scheduled.id, brandId: notScheduledBrand }), 422, 'brand_not_found');
  });

  test('orders are listed for the placing key only, newest first; the claim order belongs to no key', async () => {
    const a = (await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) })).body;
    const b = (await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) })).body;
    const mine = (await box.api('GET', '/reward-store-orders?limit=100')).body.items.map((o: Json) => o.id);
    expect(mine.indexOf(b.id)).toBeLessThan(mine.indexOf(a.id));
    const theirs = (await box.api('GET', '/reward-store-orders?limit=100', { as: 'other' })).body.items.map((o: Json) => o.id);
    expect(theirs).not.toContain(a.id);
    expectProblem(await box.api('GET', `/reward-store-orders/${a.id}`, { as: 'other' }), 404, 'not_found');
    const link = await newLink(box, w);
    const claim = await box.admin('POST', `/links/${link.id}/claim`);
    expect(claim.status).toBe(200);
    const listed = [
      ...(await box.api('GET', '/reward-store-orders?limit=100')).body.items,
      ...(await box.api('GET', '/reward-store-orders?limit=100', { as: 'other' })).body.items,
      ...(await box.api('GET', '/reward-store-orders?limit=100', { as: 'stores' })).body.items,
    ];
    expect(listed.length).toBeGreaterThan(0);
    if (claim.body?.order?.id !== undefined) expect(listed.map((o: Json) => o.id)).not.toContain(claim.body.order.id);
    const filtered = (await box.api('GET', `/reward-store-orders?status=PROCESSING&storeId=${w.live.id}&brandId=${w.lucky}`)).body.items;
    expect(filtered.length).toBeGreaterThan(0);
    for (const o of filtered) expect(o).toMatchObject({ status: 'PROCESSING', storeId: w.live.id, brandId: w.lucky });
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Idempotency', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  const linkCount = async () => (await feedAll(box)).filter((e) => e.type === 'personal_link.created').length;

  test('new key runs; same key same request replays with Idempotent-Replayed: true; nothing runs twice', async () => {
    const before = await linkCount();
    const key = ik();
    const body = { campaignId: w.expiring.id, fullName: 'Replay', message: 'hi' };
    const first = await box.api('POST', '/personal-links', { idem: key, body });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await box.api('POST', '/personal-links', { idem: key, body });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // key order and whitespace do not matter
    const reordered = `{ "message" : "hi",\n  "fullName": "Replay", "campaignId": "${w.expiring.id}" }`;
    const raw = await box.api('POST', '/personal-links', { idem: key, raw: reordered, headers: { 'Content-Type': 'application/json' } });
    expect(raw.status).toBe(201);
    expect(raw.headers.get('idempotent-replayed')).toBe('true');
    expect(await linkCount()).toBe(before + 1);
    // a changed, added or removed value is a different request
    for (const changed of [{ ...body, message: 'ho' }, { ...body, email: 'a@b.org' }, { campaignId: body.campaignId, fullName: body.fullName }]) {
      expectProblem(await box.api('POST', '/personal-links', { idem: key, body: changed }), 422, 'idempotency_key_reused');
    }
    // a different path is a different request
    expectProblem(await box.api('POST', '/reward-store-orders', { idem: key, body }), 422, 'idempotency_key_reused');
    // a different query is a different request
    expectProblem(await box.api('POST', '/personal-links?x=1', { idem: key, body }), 422, 'idempotency_key_reused');
  });

  test('missing, blank and over-long keys; 255 is fine', async () => {
    const body = { campaignId: w.expiring.id, fullName: 'K' };
    expectProblem(await box.api('POST', '/personal-links', { body }), 400, 'idempotency_key_required');
    expectProblem(await box.api('POST', '/personal-links', { body, idem: '   ' }), 400, 'idempotency_key_required');
    expectProblem(await box.api('POST', '/reward-store-orders', { body: order(w) }), 400, 'idempotency_key_required');
    expectProblem(await box.api('POST', '/personal-links', { body, idem: 'k'.repeat(256) }), 400, 'idempotency_key_invalid');
    expectProblem(await box.api('POST', '/reward-store-orders', { body: order(w), idem: 'k'.repeat(256) }), 400, 'idempotency_key_invalid');
    expect((await box.api('POST', '/personal-links', { body, idem: `${'k'.repeat(250)}${String(seq++).padStart(5, '0')}` })).status).toBe(201);
  });

  test('a key belongs to one API key; refusals are not stored; orders replay', async () => {
    const key = ik();
    const body = { campaignId: w.expiring.id, fullName: 'Shared' };
    const a = await box.api('POST', '/personal-links', { idem: key, body });
    const b = await box.api('POST', '/personal-links', { as: 'other', idem: key, body });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);

    const k2 = ik();
    expect((await box.api('POST', '/personal-links', { idem: k2, body: { fullName: 'R' } })).status).toBe(400);
    const fixed = await box.api('POST', '/personal-links', { idem: k2, body: { campaignId: w.expiring.id, fullName: 'R' } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();

    const k3 = ik();
    const o1 = await box.api('POST', '/reward-store-orders', { idem: k3, body: order(w) });
    const o2 = await box.api('POST', '/reward-store-orders', { idem: k3, body: order(w) });
    expect(o1.status).toBe(201);
    expect(o2.headers.get('idempotent-replayed')).toBe('true');
    expect(o2.body.id).toBe(o1.body.id);
  });

  test('cancel: optional key replays the first response', async () => {
    const link = await newLink(box, w);
    const key = ik();
    const first = await box.api('POST', `/personal-links/${link.id}:cancel`, { idem: key, body: { reason: 'r' } });
    expect(first.status).toBe(200);
    const again = await box.api('POST', `/personal-links/${link.id}:cancel`, { idem: key, body: { reason: 'r' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(await box.api('POST', `/personal-links/${link.id}:cancel`, { idem: key, body: { reason: 'other' } }), 422, 'idempotency_key_reused');
  });

  test('same key while the first is still running: 409 idempotency_request_in_progress', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      expect((await b.admin('PUT', '/faults', { errorRate: 0, resetRate: 0, rateLimitRate: 0, delayMs: 400 })).status).toBe(200);
      const key = ik();
      const body = { campaignId: bw.expiring.id, fullName: 'Slow' };
      const [x, y] = await Promise.all([
        b.api('POST', '/personal-links', { idem: key, body }),
        sleep(100).then(() => b.api('POST', '/personal-links', { idem: key, body })),
      ]);
      expect(x.status).toBe(201);
      expectProblem(y, 409, 'idempotency_request_in_progress');
      await b.admin('PUT', '/faults', { errorRate: 0, resetRate: 0, rateLimitRate: 0, delayMs: 0 });
      const z = await b.api('POST', '/personal-links', { idem: key, body });
      expect(z.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await b.close();
    }
  });

  test('keys are kept 7 days; afterwards the same key runs as new', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      const key = ik();
      const body = { campaignId: bw.twoBrand.id, brandId: bw.lucky, fullName: 'Week' };
      const first = await b.api('POST', '/personal-links', { idem: key, body });
      await b.admin('POST', '/clock', { advanceSeconds: 6 * 86_400 });
      expect((await b.api('POST', '/personal-links', { idem: key, body })).headers.get('idempotent-replayed')).toBe('true');
      await b.admin('POST', '/clock', { advanceSeconds: 86_400 + 60 });
      const later = await b.api('POST', '/personal-links', { idem: key, body });
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(later.body.id).not.toBe(first.body.id);
    } finally {
      await b.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Pagination and the event feed', () => {
  test('lists page without gaps or repeats; nextCursor null on the last page of a list', async () => {
    const box = await boot();
    try {
      const w = await discover(box);
      for (let i = 0; i < 7; i++) await newLink(box, w);
      const all = (await box.api('GET', '/personal-links?limit=100')).body.items.map((l: Json) => l.id);
      const paged: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: Res = await box.api('GET', `/personal-links?limit=3${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
        expect(page.body.items.length).toBeLessThanOrEqual(3);
        paged.push(...page.body.items.map((l: Json) => l.id));
        after = page.body.nextCursor;
        if (after === null) break;
      }
      expect(paged).toEqual(all);
      const created = (await box.api('GET', '/personal-links?limit=100')).body.items.map((l: Json) => Date.parse(l.createdAt));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect((await box.api('GET', '/personal-links')).body.items.length).toBe(Math.min(25, all.length));
      const camps: string[] = [];
      let c: string | null = null;
      do {
        const page: Res = await box.api('GET', `/campaigns?limit=1${c === null ? '' : `&after=${encodeURIComponent(c)}`}`);
        camps.push(...page.body.items.map((x: Json) => x.id));
        c = page.body.nextCursor;
      } while (c !== null);
      expect(camps).toEqual((await box.api('GET', '/campaigns')).body.items.map((x: Json) => x.id));
    } finally {
      await box.close();
    }
  });

  test('feed: cursor on every page, resume skips nothing, null only for an empty feed without after', async () => {
    const box = await boot();
    try {
      const w = await discover(box);
      // the stores key has placed no orders: empty feed
      const empty = await box.api('GET', '/events', { as: 'stores' });
      expect(empty.body).toEqual({ items: [], nextCursor: null });
      const placed = await box.api('POST', '/reward-store-orders', { as: 'stores', idem: ik(), body: order(w) });
      await box.admin('POST', `/orders/${placed.body.id}/ship`, {});
      const first = await box.api('GET', '/events', { as: 'stores' });
      expect(first.body.items.map((e: Json) => e.type)).toEqual(['order.sent']);
      expect(typeof first.body.nextCursor).toBe('string');
      const tail = await box.api('GET', `/events?after=${encodeURIComponent(first.body.nextCursor)}`, { as: 'stores' });
      expect(tail.body.items).toEqual([]);
      expect(typeof tail.body.nextCursor).toBe('string');
      await box.admin('POST', `/orders/${placed.body.id}/deliver`);
      const resumed = await box.api('GET', `/events?after=${encodeURIComponent(tail.body.nextCursor)}`, { as: 'stores' });
      expect(resumed.body.items.map((e: Json) => e.type)).toEqual(['order.completed']);

      // page through the full key's feed one at a time while events are added; nothing skipped or repeated
      for (let i = 0; i < 4; i++) await newLink(box, w);
      const pages: Json[] = [];
      let after: string | null = null;
      for (let i = 0; i < 200; i++) {
        const page: Res = await box.api('GET', `/events?limit=2${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
        expect(page.status).toBe(200);
        expect(typeof page.body.nextCursor).toBe('string');
        pages.push(...page.body.items);
        after = page.body.nextCursor;
        if (i === 1) await newLink(box, w); // added mid-walk
        if (page.body.items.length === 0) break;
      }
      const ids = pages.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      const whole = await feedAll(box);
      expect(ids).toEqual(whole.map((e) => e.id));
      expect(whole.some((e) => e.type === 'ping')).toBe(false);
      // default page size 25
      expect((await box.api('GET', '/events')).body.items.length).toBe(Math.min(25, whole.length));
      // a cursor from beyond the feed's end is unknown
      expectFieldError(await box.api('GET', '/events?after=zzzz'), 'after', 'invalid');
    } finally {
      await box.close();
    }
  });

  test('events are kept 30 days', async () => {
    const box = await boot();
    try {
      const w = await discover(box);
      const old = await newLink(box, w);
      const cursor = (await box.api('GET', '/events?limit=100')).body.nextCursor;
      await box.admin('POST', '/clock', { advanceSeconds: 29 * 86_400 });
      expect(eventsFor(await feedAll(box), old.id)).toHaveLength(1);
      const newer = await box.api('POST', '/personal-links', { idem: ik(), body: { campaignId: w.twoBrand.id, brandId: w.lucky, fullName: 'New' } });
      const moved = await box.admin('POST', '/clock', { advanceSeconds: 86_400 + 60 });
      const feed = await feedAll(box);
      // (the old link's campaign expired at day 30, which recorded a newer event for it)
      expect(eventsFor(feed, old.id, 'personal_link.created')).toHaveLength(0);
      expect(eventsFor(feed, newer.body.id)).toHaveLength(1);
      const now = Date.parse(moved.body?.now ?? new Date(Date.now() + 30 * 86_400_000 + 60_000).toISOString());
      for (const e of feed) expect(now - Date.parse(e.occurredAt)).toBeLessThanOrEqual(30 * 86_400_000);
      // an old cursor still resumes with every later event kept
      const resumed = await box.api('GET', `/events?after=${encodeURIComponent(cursor)}&limit=100`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.items.map((e: Json) => e.id)).toEqual(feed.map((e) => e.id));
    } finally {
      await box.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Events routing and webhook delivery', () => {
  let box: Box;
  let w: World;
  const rx = {} as Record<KeyName, Receiver>;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
    for (const name of ['full', 'other', 'links', 'stores'] as const) {
      rx[name] = await receiver();
      const set = await box.admin('PATCH', `/keys/${name}`, { webhookUrl: rx[name].url });
      expect(set.status).toBe(200);
    }
  });
  afterAll(async () => {
    await box.close();
    await Promise.all(Object.values(rx).map((r) => r.close()));
  });

  const gotFor = (name: KeyName, id: string, type?: string) => rx[name].got.filter((h) => h.body.data?.id === id && (type === undefined || h.body.type === type));
  const settle = async (check: () => boolean): Promise<void> => {
    await until(check);
    await sleep(150);
  };

  test('signed deliveries: headers, HMAC with the secret as text, body equals the feed item', async () => {
    const link = await newLink(box, w);
    await settle(() => gotFor('other', link.id).length > 0);
    const [hook] = gotFor('other', link.id);
    expect(hook.headers['content-type']).toMatch(/^application\/json/);
    expect(hook.headers['svc-event-id']).toBe(hook.body.id);
    expect(hook.headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(hook.headers['svc-signature'] as string, hook.raw, box.keys.other.webhookSecret)).toBe(true);
    expect(verifySignature(hook.headers['svc-signature'] as string, hook.raw, box.keys.full.webhookSecret)).toBe(false);
    expect(verifySignature(hook.headers['svc-signature'] as string, `${hook.raw} `, box.keys.other.webhookSecret)).toBe(false);
    // hex-decoded secret must not verify
    const [t, v1] = (hook.headers['svc-signature'] as string).split(',').map((p) => p.split('=')[1]);
    const decoded = createHmac('sha256', Buffer.from(box.keys.other.webhookSecret, 'hex')).update(`${t}.${hook.raw}`).digest('hex');
    expect(decoded).not.toBe(v1);
    const feedItem = (await feedAll(box, 'other')).find((e) => e.id === hook.body.id);
    expect(hook.body).toEqual(feedItem);
    expect(hook.body.type).toBe('personal_link.created');
    const deliveries = (await box.admin('GET', '/deliveries')).body;
    const items: Json[] = Array.isArray(deliveries) ? deliveries : deliveries.items;
    const rec = items.find((d) => d.eventId === hook.body.id && d.keyName === 'other');
    expect(rec).toMatchObject({ eventId: hook.body.id, type: 'personal_link.created', keyName: 'other', url: rx.other.url, attempt: 1, status: 200 });
    expect(rec.at).toMatch(TS);
  });

  test('rules 1-4: own changes not delivered (but in own feed), brands and scopes filter, expired to the creator too', async () => {
    const link = await newLink(box, w); // lucky brand, by full
    const foreign = (await box.api('POST', '/personal-links', { idem: ik(), body: { campaignId: w.twoBrand.id, brandId: w.otherBrand, fullName: 'F' } })).body;
    await settle(() => gotFor('other', link.id).length > 0 && gotFor('links', link.id).length > 0 && gotFor('other', foreign.id).length > 0);
    expect(gotFor('full', link.id)).toHaveLength(0);
    expect(gotFor('stores', link.id)).toHaveLength(0);
    expect(gotFor('links', foreign.id)).toHaveLength(0);
    expect(gotFor('other', link.id).map((h) => h.body.type)).toEqual(['personal_link.created']);
    expect(eventsFor(await feedAll(box, 'full'), link.id)).toHaveLength(1);

    // cancellation by full: to other and links, not to full
    await box.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'x' } });
    await settle(() => gotFor('other', link.id, 'personal_link.cancelled').length > 0);
    expect(gotFor('links', link.id, 'personal_link.cancelled')).toHaveLength(1);
    expect(gotFor('full', link.id)).toHaveLength(0);

    // team changes (approve is not reachable without approval; claim is): to every PERSONAL_LINKS key incl. creator
    const claimed = await newLink(box, w);
    await box.admin('POST', `/links/${claimed.id}/claim`);
    await settle(() => gotFor('full', claimed.id, 'personal_link.claimed').length > 0);
    expect(gotFor('other', claimed.id, 'personal_link.claimed')).toHaveLength(1);

    // expiry: the creator receives it too
    const open = await box.api('POST', '/personal-links', { idem: ik(), body: { campaignId: w.twoBrand.id, brandId: w.lucky, fullName: 'E' } });
    await box.admin('POST', `/campaigns/${w.twoBrand.id}/complete`);
    await settle(() => gotFor('full', open.body.id, 'personal_link.expired').length > 0);
    expect(gotFor('other', open.body.id, 'personal_link.expired')).toHaveLength(1);
    expect(gotFor('links', open.body.id, 'personal_link.expired')).toHaveLength(1);
    expect(gotFor('stores', open.body.id)).toHaveLength(0);
  });

  test('rule 3: order events only to the placing key, and only while it has REWARD_STORES', async () => {
    const placed = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) });
    const id = placed.body.id;
    await box.admin('POST', `/orders/${id}/ship`, { carrier: 'UPS' });
    await settle(() => gotFor('full', id, 'order.sent').length > 0);
    for (const k of ['other', 'links', 'stores'] as const) expect(gotFor(k, id)).toHaveLength(0);
    for (const k of ['other', 'stores'] as const) expect(eventsFor(await feedAll(box, k), id)).toHaveLength(0);
    const hook = gotFor('full', id, 'order.sent')[0];
    expect(verifySignature(hook.headers['svc-signature'] as string, hook.raw, box.keys.full.webhookSecret)).toBe(true);

    await box.admin('PATCH', '/keys/full', { scopes: ['PERSONAL_LINKS'] });
    await box.admin('POST', `/orders/${id}/deliver`);
    await sleep(300);
    expect(gotFor('full', id, 'order.completed')).toHaveLength(0);
    expect(eventsFor(await feedAll(box, 'full'), id)).toHaveLength(0);
    await box.admin('PATCH', '/keys/full', { scopes: ['PERSONAL_LINKS', 'REWARD_STORES'] });
    // scopes filter the feed, the event was still recorded
    expect(eventsFor(await feedAll(box, 'full'), id).map((e) => e.type)).toEqual(['order.sent', 'order.completed']);
  });

  test('rule 2: keys without PERSONAL_LINKS get no link events; approval gives created (REQUESTED) then approved', async () => {
    await box.admin('PATCH', '/settings', { approvalRequired: true });
    try {
      const link = await newLink(box, w);
      expect(link.status).toBe('REQUESTED');
      await box.admin('POST', `/links/${link.id}/approve`);
      await settle(() => gotFor('other', link.id).length >= 2);
      expect(gotFor('other', link.id).map((h) => h.body.type).sort()).toEqual(['personal_link.approved', 'personal_link.created']);
      expect(gotFor('other', link.id, 'personal_link.created')[0].body.data.status).toBe('REQUESTED');
      expect(gotFor('full', link.id, 'personal_link.approved')).toHaveLength(1);
      expect(gotFor('stores', link.id)).toHaveLength(0);
      // REQUESTED orders: approval sends order.approved to the placer
      const o = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) });
      expect(o.body.status).toBe('REQUESTED');
      await box.admin('POST', `/orders/${o.body.id}/approve`);
      await settle(() => gotFor('full', o.body.id).length > 0);
      expect(gotFor('full', o.body.id).map((h) => h.body.type)).toEqual(['order.approved']);
    } finally {
      await box.admin('PATCH', '/settings', { approvalRequired: false });
    }
  });

  test('POST /webhooks:test: the four cases; pings are signed, full envelope, never in the feed', async () => {
    const before = rx.other.got.length;
    const ok = await box.api('POST', '/webhooks:test', { as: 'other', idem: 'same' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ responseStatus: 200, error: null });
    const again = await box.api('POST', '/webhooks:test', { as: 'other', idem: 'same' });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    await until(() => rx.other.got.length >= before + 2);
    const pings = rx.other.got.slice(before).filter((h) => h.body.type === 'ping');
    expect(pings).toHaveLength(2);
    expect(Object.keys(pings[0].body).sort()).toEqual(['data', 'environment', 'id', 'occurredAt', 'type']);
    expect(pings[0].body.data).toEqual({});
    expect(pings[0].body.occurredAt).toMatch(TS);
    expect(pings[0].headers['svc-event-id']).toBe(pings[0].body.id);
    expect(verifySignature(pings[0].headers['svc-signature'] as string, pings[0].raw, box.keys.other.webhookSecret)).toBe(true);
    expect(rx.full.got.some((h) => h.body.type === 'ping')).toBe(false);
    expect((await feedAll(box, 'other')).some((e) => e.type === 'ping')).toBe(false);

    rx.other.status = 503;
    const bad = await box.api('POST', '/webhooks:test', { as: 'other' });
    rx.other.status = 200;
    expect(bad.body.responseStatus).toBe(503);
    expect(bad.body.error).toContain('503');
    // tests are not retried
    const pingsBefore = rx.other.got.filter((h) => h.body.type === 'ping').length;
    await box.admin('POST', '/clock', { advanceSeconds: 120 });
    await sleep(100);
    expect(rx.other.got.filter((h) => h.body.type === 'ping').length).toBe(pingsBefore);

    const dead = await receiver();
    await dead.close();
    await box.admin('PATCH', '/keys/links', { webhookUrl: dead.url });
    const unreachable = await box.api('POST', '/webhooks:test', { as: 'links' });
    expect(unreachable.status).toBe(200);
    expect(unreachable.body.responseStatus).toBeNull();
    expect(typeof unreachable.body.error).toBe('string');

    await box.admin('PATCH', '/keys/links', { webhookUrl: null });
    const none = await box.api('POST', '/webhooks:test', { as: 'links' });
    expect(none.body.responseStatus).toBeNull();
    expect(none.body.error).toMatch(/webhook URL/i);
    await box.admin('PATCH', '/keys/links', { webhookUrl: rx.links.url });
  });
});

describe('Webhook retries and pauses', () => {
  test('retries at 1m, 5m, 30m, 1h, 3h, 6h, 12h; 8 attempts, then stop; event stays in the feed', async () => {
    const box = await boot();
    const rx = await receiver(500);
    try {
      const w = await discover(box);
      await box.admin('PATCH', '/keys/other', { webhookUrl: rx.url });
      const link = await newLink(box, w);
      const attempts = () => rx.got.filter((h) => h.body.data?.id === link.id).length;
      await until(() => attempts() === 1);
      expect(attempts()).toBe(1);
      for (const wait of [60, 300, 1800, 3600, 10_800, 21_600, 43_200]) {
        const before = attempts();
        await box.admin('POST', '/clock', { advanceSeconds: wait - 2 });
        await sleep(30);
        expect(attempts()).toBe(before);
        await box.admin('POST', '/clock', { advanceSeconds: 3 });
        await until(() => attempts() === before + 1);
        expect(attempts()).toBe(before + 1);
      }
      expect(attempts()).toBe(8);
      await box.admin('POST', '/clock', { advanceSeconds: 2 * 86_400 });
      await sleep(100);
      expect(attempts()).toBe(8);
      const hooks = rx.got.filter((h) => h.body.data?.id === link.id);
      expect(new Set(hooks.map((h) => h.body.id)).size).toBe(1);
      for (const h of hooks) {
        expect(h.raw).toBe(hooks[0].raw);
        expect(h.headers['svc-event-id']).toBe(hooks[0].body.id);
        // signed with real Unix time, whatever the virtual clock says
        expect(verifySignature(h.headers['svc-signature'] as string, h.raw, box.keys.other.webhookSecret)).toBe(true);
      }
      const deliveries = (await box.admin('GET', '/deliveries')).body;
      const items: Json[] = (Array.isArray(deliveries) ? deliveries : deliveries.items).filter((d: Json) => d.eventId === hooks[0].body.id);
      expect(items.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      for (const d of items) expect(d.status).toBe(500);
      expect(eventsFor(await feedAll(box), link.id)).toHaveLength(1);
    } finally {
      await box.close();
      await rx.close();
    }
  });

  test('a success ends the retries', async () => {
    const box = await boot();
    const rx = await receiver(500);
    try {
      const w = await discover(box);
      await box.admin('PATCH', '/keys/other', { webhookUrl: rx.url });
      const link = await newLink(box, w);
      const attempts = () => rx.got.filter((h) => h.body.data?.id === link.id).length;
      await until(() => attempts() === 1);
      rx.status = 204;
      await box.admin('POST', '/clock', { advanceSeconds: 61 });
      await until(() => attempts() === 2);
      await box.admin('POST', '/clock', { advanceSeconds: 86_400 });
      await sleep(100);
      expect(attempts()).toBe(2);
    } finally {
      await box.close();
      await rx.close();
    }
  });

  test('paused while API access is off, delivered when it returns', async () => {
    const box = await boot();
    const rx = await receiver();
    try {
      const w = await discover(box);
      await box.admin('PATCH', '/keys/full', { webhookUrl: rx.url });
      const link = await newLink(box, w);
      await box.admin('PATCH', '/settings', { apiAccess: false });
      await box.admin('POST', `/links/${link.id}/claim`);
      await sleep(300);
      expect(rx.got.filter((h) => h.body.data?.id === link.id)).toHaveLength(0);
      await box.admin('PATCH', '/settings', { apiAccess: true });
      await until(() => rx.got.some((h) => h.body.data?.id === link.id));
      const got = rx.got.filter((h) => h.body.data?.id === link.id);
      expect(got.map((h) => h.body.type)).toEqual(['personal_link.claimed']);
      expect(verifySignature(got[0].headers['svc-signature'] as string, got[0].raw, box.keys.full.webhookSecret)).toBe(true);
    } finally {
      await box.close();
      await rx.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Limits and errors', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  test('problem+json on 404 path, 405, 406, 415, 413', async () => {
    expectProblem(await box.api('GET', '/nowhere'), 404, 'not_found');
    const m = await box.api('DELETE', '/me');
    expectProblem(m, 405);
    expectProblem(await box.api('GET', '/webhooks:test'), 405);
    expectProblem(await box.api('PUT', '/personal-links', { body: {} }), 405);
    expectProblem(await box.api('GET', '/me', { headers: { Accept: 'text/html' } }), 406);
    expect((await box.api('GET', '/me', { headers: { Accept: 'application/json' } })).status).toBe(200);
    expect((await box.api('GET', '/me', { headers: { Accept: '*/*' } })).status).toBe(200);
    const head = await box.api('HEAD', '/me');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expectProblem(await box.api('POST', '/personal-links', { idem: ik(), raw: 'campaignId=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 415);
    const before = (await box.api('GET', '/personal-links?limit=100')).body.items.length;
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 0x20);
    big.write('{"fullName":"x"', 0);
    const large = await box.api('POST', '/personal-links', { idem: ik(), raw: big, headers: { 'Content-Type': 'application/json' } });
    expectProblem(large, 413);
    expect((await box.api('GET', '/personal-links?limit=100')).body.items.length).toBe(before);
    // a body under 10 MB (either reading of MB) runs
    const pad = ' '.repeat(9_900_000);
    const fits = await box.api('POST', '/personal-links', { idem: ik(), raw: `{"campaignId":"${w.expiring.id}","fullName":"Big"}${pad}`, headers: { 'Content-Type': 'application/json' } });
    expect(fits.status, fits.text.slice(0, 200)).toBe(201);
  });

  test('rate limit: 429 rate_limited with Retry-After, per key', async () => {
    const b = await boot();
    try {
      expect((await b.admin('PATCH', '/settings', { rateLimitPerMinute: 3 })).status).toBe(200);
      const replies: Res[] = [];
      for (let i = 0; i < 5; i++) replies.push(await b.api('GET', '/me'));
      expect(replies.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      const limited = replies[3];
      expectProblem(limited, 429, 'rate_limited');
      const retryAfter = limited.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      expect((await b.api('GET', '/me', { as: 'other' })).status).toBe(200);
      await b.admin('POST', '/clock', { advanceSeconds: 61 });
      await sleep(0);
    } finally {
      await b.close();
    }
  });

  test('no PII in links, orders, events or webhooks', async () => {
    const rx = await receiver();
    try {
      await box.admin('PATCH', '/keys/other', { webhookUrl: rx.url });
      const link = await newLink(box, w, 'full', { fullName: 'Zebedee Quixotic', email: 'zebedee.q@example.org', message: 'Happy birthday Zebedee' });
      const text = JSON.stringify(link);
      expect(text).not.toContain('Zebedee');
      expect(text).not.toContain('zebedee.q');
      const placed = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w, w.plainGift, { additionalDetails: 'Ring twice' }) });
      await box.admin('POST', `/orders/${placed.body.id}/ship`, {});
      await box.admin('POST', `/links/${link.id}/claim`);
      const pii = ['Rita Recipient', 'rita.recipient', '+4915112345678', '4915112345678', 'Geheimstrasse', '10115', 'Zebedee', 'zebedee.q'];
      await until(() => rx.got.some((h) => h.body.data?.id === link.id && h.body.type === 'personal_link.claimed'));
      const texts = [
        placed.text,
        (await box.api('GET', `/reward-store-orders/${placed.body.id}`)).text,
        (await box.api('GET', '/reward-store-orders?limit=100')).text,
        (await box.api('GET', '/personal-links?limit=100')).text,
        JSON.stringify(await feedAll(box)),
        ...rx.got.map((h) => h.raw),
      ];
      for (const t of texts) for (const p of pii) expect(t).not.toContain(p);
    } finally {
      await box.admin('PATCH', '/keys/other', { webhookUrl: null });
      await rx.close();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */

describe('Further rules', () => {
  let box: Box;
  let w: World;
  beforeAll(async () => {
    box = await boot();
    w = await discover(box);
  });
  afterAll(() => box.close());

  test('problem type is a URI; errors[] only on 400', async () => {
    const p = await box.api('GET', '/personal-links/nope');
    expect(() => new URL(p.body.type)).not.toThrow();
    const v = await box.api('GET', '/campaigns?limit=0');
    expect(() => new URL(v.body.type)).not.toThrow();
  });

  test('a store key limited to one brand: lists, reads and orders follow its brand', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      const me = (await b.api('GET', '/me')).body;
      const third = me.brands.map((x: Json) => x.id).find((id: string) => !bw.scheduled.brandIds.includes(id));
      await b.admin('PATCH', '/keys/stores', { brandIds: [third] });
      const stores = (await b.api('GET', '/reward-stores', { as: 'stores' })).body.items;
      expect(stores.map((s: Json) => s.id)).not.toContain(bw.scheduled.id);
      for (const s of stores) expect(s.brandIds).toEqual([third]);
      expectProblem(await b.api('GET', `/reward-stores/${bw.scheduled.id}?brandId=${bw.scheduled.brandIds[0]}&country=DE`, { as: 'stores' }), 404, 'not_found');
      expectProblem(await b.api('GET', `/reward-stores/${bw.live.id}?brandId=${bw.lucky}&country=DE`, { as: 'stores' }), 404, 'not_found');
      const refused = await b.api('POST', '/reward-store-orders', { as: 'stores', idem: ik(), body: order(bw) });
      expect(['brand_not_found', 'reward_store_not_found']).toContain(refused.body.code);
      expect(refused.status).toBe(422);
      expectProblem(await b.api('POST', '/reward-store-orders', { as: 'stores', idem: ik(), body: { ...order(bw), storeId: bw.scheduled.id, brandId: third } }), 422, 'reward_store_not_found');
      const own = await b.api('GET', `/reward-stores/${bw.live.id}?brandId=${third}&country=DE`, { as: 'stores' });
      expect(own.status).toBe(200);
      expect(own.body.brand.id).toBe(third);
      expect((await b.api('GET', '/me', { as: 'stores' })).body.brands.map((x: Json) => x.id)).toEqual([third]);
    } finally {
      await b.close();
    }
  });

  test('event data is the record as the event left it; team links yield created to every key', async () => {
    const rx = await receiver();
    try {
      await box.admin('PATCH', '/keys/full', { webhookUrl: rx.url });
      expect((await box.api('GET', '/me')).body.key.webhookUrl).toBe(rx.url);
      const link = await newLink(box, w, 'other');
      await box.api('POST', `/personal-links/${link.id}:cancel`, { as: 'other', body: { reason: 'r' } });
      const events = eventsFor(await feedAll(box), link.id);
      expect(events.map((e) => e.type)).toEqual(['personal_link.created', 'personal_link.cancelled']);
      expect(events[0].data).toEqual(link);
      expect(events[1].data.status).toBe('CANCELLED');
      const team = (await box.admin('POST', '/links', { campaignId: w.expiring.id, brandId: w.lucky, fullName: 'T' })).body;
      await until(() => rx.got.some((h) => h.body.data?.id === team.id));
      expect(rx.got.filter((h) => h.body.data?.id === team.id).map((h) => h.body.type)).toEqual(['personal_link.created']);
      expect(link.claimUrl).toMatch(/^https?:\/\//);
    } finally {
      await box.admin('PATCH', '/keys/full', { webhookUrl: null });
      await rx.close();
    }
  });

  test('orders hold every custom field; Idempotency-Key is ignored on webhooks:test and checked on cancel', async () => {
    const fields = (await box.api('GET', '/me')).body.tenant.customFields;
    const placed = await box.api('POST', '/reward-store-orders', { idem: ik(), body: order(w) });
    expect(placed.body.customFields).toHaveLength(fields.length);
    for (const a of placed.body.customFields) expect(a).toEqual({ fieldId: expect.any(String), textValue: null, checked: null });
    const t = await box.api('POST', '/webhooks:test', { idem: 'x'.repeat(300) });
    expect(t.status).toBe(200);
    expect(t.body).toEqual({ responseStatus: null, error: expect.any(String) });
    const link = await newLink(box, w);
    expectProblem(await box.api('POST', `/personal-links/${link.id}:cancel`, { idem: 'x'.repeat(256), body: { reason: 'r' } }), 400, 'idempotency_key_invalid');
    const g = await box.api('GET', '/me', { idem: 'abc' });
    expect(g.headers.get('idempotent-replayed')).toBeNull();
  });

  test('500 is problem+json and a POST retried with the same key runs once', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      await b.admin('PUT', '/faults', { errorRate: 1, resetRate: 0, rateLimitRate: 0, delayMs: 0 });
      const key = ik();
      const body = { campaignId: bw.expiring.id, fullName: 'Retry' };
      const failed = await b.api('POST', '/personal-links', { idem: key, body });
      expectProblem(failed, 500);
      await b.admin('PUT', '/faults', { errorRate: 0, resetRate: 0, rateLimitRate: 0, delayMs: 0 });
      const ok = await b.api('POST', '/personal-links', { idem: key, body });
      expect(ok.status).toBe(201);
    } finally {
      await b.close();
    }
  });

  test('image addresses: 600 a minute per client address, then 429', async () => {
    const b = await boot();
    try {
      const bw = await discover(b);
      const url = bw.gifts.find((g: Json) => g.thumbnail !== null).thumbnail.url;
      // The bucket refills at 10 a second while the loop runs, so a slow machine gets further than 600.
      let limited: Response | undefined;
      let allowed = 0;
      const started = performance.now();
      for (let i = 0; i < 5000 && limited === undefined; i++) {
        const r = await fetch(url);
        await r.arrayBuffer();
        if (r.status === 429) limited = r;
        else {
          expect(r.status).toBe(200);
          allowed++;
        }
      }
      expect(limited).toBeDefined();
      expect(allowed).toBeGreaterThanOrEqual(600);
      expect(allowed).toBeLessThanOrEqual(600 + Math.ceil(((performance.now() - started) / 1000) * 10));
      expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
      // the key's own limit is separate
      expect((await b.api('GET', '/me')).status).toBe(200);
    } finally {
      await b.close();
    }
  });
});
