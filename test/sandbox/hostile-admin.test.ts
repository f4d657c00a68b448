/**
 * No input leaves the sandbox broken: hostile values at every admin endpoint (and at the
 * workspace's forms, which take the same path) are answered below 500, what the sandbox cannot
 * represent is 400 naming the field, and afterwards every ordinary call still succeeds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';
import { placeOrders } from '../helpers/orders.js';

let sb: TestSandbox;
let campaign: { id: string; brandIds: string[] };
let linkId: string;
let orderId: string;
let productId: string;
let counter = 0;

/** Values no field takes (none of them a valid setting that would change the sandbox on purpose). */
const HOSTILE: unknown[] = [-1, 0.5, 1.5, 1e308, -1e308, 2 ** 53 + 2, 2 ** 31, 'x'.repeat(5000), '', '1e308', [], {}, [{}], [null], { a: { b: { c: {} } } }];
/** Whole bodies that are not what any endpoint takes. */
const BODIES = ['null', '[]', '"text"', '1e999', '{"a":1e999}', '{', '{"__proto__":{"advanceSeconds":1e308}}', `${'['.repeat(5000)}${']'.repeat(5000)}`];

async function raw(method: string, path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sb.info.adminUrl}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  sb = await startSandbox();
  campaign = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
  linkId = (await sb.admin('POST', '/links', { campaignId: campaign.id, brandId: campaign.brandIds[0], fullName: 'Target' })).body.id;
  const [order] = await placeOrders(sb, 1);
  orderId = order.id;
  productId = order.productId as string;
});
afterAll(() => sb.close());

/** Every admin endpoint with the members its body reads. */
const endpoints = (): [string, string, string[]][] => [
  ['POST', '/links', ['campaignId', 'brandId', 'fullName', 'customFields']],
  ['POST', `/links/${linkId}/claim`, ['productId', 'variations', 'recipient']],
  ['POST', `/links/${linkId}/cancel`, ['reason']],
  ['POST', '/campaigns', ['name', 'brandIds']],
  ['POST', `/orders/${orderId}/ship`, ['carrier', 'trackingReference', 'trackingUrl']],
  ['PATCH', `/gifts/${productId}`, ['published', 'prices', 'stock']],
  ['POST', '/clock', ['advanceSeconds']],
  ['PATCH', '/settings', ['approvalRequired', 'apiAccess', 'rateLimitPerMinute', 'requiredCustomFieldIds']],
  ['PATCH', '/keys/full', ['webhookUrl', 'scopes', 'brandIds', 'revoked']],
  ['PUT', '/faults', ['errorRate', 'resetRate', 'rateLimitRate', 'delayMs']],
];

describe('hostile admin calls', () => {
  test('no hostile body or member is answered 500', async () => {
    const failures: string[] = [];
    for (const [method, path, members] of endpoints()) {
      const sends = [...BODIES, ...members.flatMap((member) => HOSTILE.filter((value) => !(member.endsWith('Rate') && value === 0.5)).map((value) => JSON.stringify({ [member]: value })))];
      for (const body of sends) {
        const reply = await raw(method, path, body);
        if (reply.status >= 500) failures.push(`${method} ${path} ${body.slice(0, 60)} → ${reply.status} ${reply.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('what the sandbox cannot represent is 400 naming the field', async () => {
    const fieldOf = async (method: string, path: string, body: unknown) => {
      const reply = await sb.admin(method, path, body);
      return `${reply.status} ${(reply.body.errors ?? []).map((e: { field: string }) => e.field).join(',')}`;
    };
    expect(await fieldOf('POST', '/clock', { advanceSeconds: 1e308 })).toBe('400 advanceSeconds');
    expect(await fieldOf('POST', '/clock', { advanceSeconds: 300 * 365 * 86_400 })).toBe('400 advanceSeconds');
    expect((await sb.admin('POST', '/clock', { advanceSeconds: 1e308 })).body.errors[0].message).toMatch(/^advanceSeconds must be at most \d+: the sandbox's clock cannot go past 2200-01-01T00:00:00Z\.$/);
    expect(await fieldOf('PUT', '/faults', { delayMs: 2 ** 31 })).toBe('400 delayMs');
    expect(await fieldOf('PATCH', '/settings', { rateLimitPerMinute: 1e15 })).toBe('400 rateLimitPerMinute');
    expect(await fieldOf('PATCH', `/gifts/${productId}`, { stock: [{ variations: {}, stock: 2 ** 53 }] })).toBe('400 stock');
    expect(await fieldOf('PATCH', `/gifts/${productId}`, { prices: { default: '9'.repeat(400) } })).toBe('400 prices');
  });

  test('the workspace clock form refuses what the clock cannot represent, and the page still works', async () => {
    const pageUrl = `${sb.info.adminUrl}/clock`;
    const pageText = await (await fetch(pageUrl, { headers: { Accept: 'text/html' } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageText)?.[1] as string;
    const post = async (fields: Record<string, string>) => {
      const res = await fetch(pageUrl, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }).toString() });
      expect(res.status).toBe(303);
      const shown = await (await fetch(new URL(res.headers.get('location') as string, pageUrl), { headers: { Accept: 'text/html' } })).text();
      return /<div class="notice[^"]*" role="status"><p>([^<]*)<\/p>/.exec(shown)?.[1];
    };
    expect(await post({ advanceSeconds: '1e308', unit: '1' })).toMatch(/^Not done: advanceSeconds: advanceSeconds must be at most \d+: the sandbox&#39;s clock cannot go past 2200-01-01T00:00:00Z\.$/);
    expect(await post({ advanceSeconds: '1', unit: 'weeks' })).toBe('Not done: advanceSeconds: advanceSeconds must be a number, 0 or more.');
    expect(await post({ advanceSeconds: '', unit: '1' })).toBe('Not done: advanceSeconds: advanceSeconds must be a number, 0 or more.');
    expect(await post({ advanceSeconds: '1', unit: '1' })).toMatch(/^The clock now stands at \d{4}-/);
  });

  test('every workspace form answers hostile values with a notice (303), never a 500', async () => {
    const pageText = await (await fetch(`${sb.info.adminUrl}/settings`, { headers: { Accept: 'text/html' } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageText)?.[1] as string;
    const forms: [string, string[]][] = [
      ['/links', ['campaignId', 'brandId', 'fullName']],
      [`/links/${linkId}/cancel`, ['reason']],
      [`/orders/${orderId}/ship`, ['carrier', 'trackingReference', 'trackingUrl']],
      ['/settings', ['rateLimitPerMinute']],
      ['/keys/other', ['webhookUrl', 'scopes', 'brandIds']],
      ['/clock', ['advanceSeconds', 'unit']],
    ];
    const values = ['', '-1', '1e308', 'NaN', 'Infinity', '__proto__', 'x'.repeat(5000), '\u0000'];
    const failures: string[] = [];
    for (const [path, fields] of forms) {
      for (const name of fields) {
        for (const value of values) {
          const res = await fetch(`${sb.info.adminUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, [name]: value }).toString() });
          if (res.status !== 303) failures.push(`${path} ${name}=${value.slice(0, 20)} → ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  test('hostile API calls are answered below 500 too', async () => {
    const store = (await sb.api('GET', '/reward-stores')).body.items[0].id as string;
    const failures: string[] = [];
    const writes = ['/personal-links', `/personal-links/${linkId}:cancel`, '/reward-store-orders'];
    for (const path of writes) {
      for (const body of [...BODIES, ...HOSTILE.map((value) => JSON.stringify({ campaignId: value, fullName: value, storeId: value, variations: value, recipient: value, reason: value, locale: value }))]) {
        const reply = await sb.api('POST', path, { rawBody: body, headers: { 'Content-Type': 'application/json' }, idempotencyKey: `hostile-${++counter}` });
        if (reply.status >= 500) failures.push(`POST ${path} ${body.slice(0, 60)} → ${reply.status}`);
      }
    }
    const reads = ['/campaigns', '/events', '/personal-links', '/reward-store-orders', '/reward-stores', `/reward-stores/${store}`];
    const queries = ['limit=1e308', 'limit=99999999999999999999', 'after=%00', 'after=W10', 'status=__proto__', 'country=constructor', 'locale=x', 'brandId=1e308', 'since=9999-99-99', 'types=__proto__'];
    for (const path of reads) {
      for (const query of queries) {
        const reply = await sb.api('GET', `${path}?${query}`);
        if (reply.status >= 500) failures.push(`GET ${path}?${query} → ${reply.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('afterwards every ordinary call still succeeds', async () => {
    expect((await sb.admin('PUT', '/faults', {})).status).toBe(200);
    expect((await sb.admin('GET', '/clock')).status).toBe(200);
    expect((await sb.admin('POST', '/clock', { advanceSeconds: 60 })).status).toBe(200);
    const created = await sb.api('POST', '/personal-links', { idempotencyKey: `after-${++counter}`, body: { campaignId: campaign.id, fullName: 'After Player' } });
    expect(created.status).toBe(201);
    const adminLink = await sb.admin('POST', '/links', { campaignId: campaign.id, brandId: campaign.brandIds[0], fullName: 'After Team' });
    expect(adminLink.status).toBe(201);
    expect((await sb.admin('POST', `/links/${adminLink.body.id as string}/claim`, {})).status).toBe(200);
    const [order] = await placeOrders(sb, 1);
    expect((await sb.admin('POST', `/orders/${order.id}/ship`, {})).status).toBe(200);
    expect((await sb.api('GET', '/events?limit=100')).status).toBe(200);
    expect((await sb.api('GET', '/campaigns')).status).toBe(200);
    expect((await sb.admin('PATCH', '/settings', { rateLimitPerMinute: 600 })).status).toBe(200);
    expect((await sb.api('GET', '/me')).status).toBe(200);
  });

  test('the clock moved as far as it goes still stamps links, orders and events', async () => {
    const most = Number(/at most (\d+)/.exec((await sb.admin('POST', '/clock', { advanceSeconds: 1e308 })).body.errors[0].message)?.[1]);
    const moved = await sb.admin('POST', '/clock', { advanceSeconds: most });
    expect(moved.status).toBe(200);
    expect(moved.body.now).toMatch(/^2199-12-31T23:59:5\d\.\d{6}Z$/);
    const created = await sb.api('POST', '/personal-links', { idempotencyKey: `late-${++counter}`, body: { campaignId: campaign.id, fullName: 'Late Player' } });
    expect(created.status === 201 || created.status === 422).toBe(true);
    const catalog = await sb.admin('POST', '/links', { brandId: campaign.brandIds[0], fullName: 'Late Catalog' });
    expect(catalog.status).toBe(201);
    expect((await sb.admin('POST', `/links/${catalog.body.id as string}/claim`, {})).status).toBe(200);
    expect((await sb.api('GET', '/events?limit=100')).status).toBe(200);
    expect((await sb.admin('POST', '/clock', { advanceSeconds: 3600 })).status).toBe(400);
  });
});
