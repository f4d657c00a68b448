import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

/*
 * The claim as the admin API takes it (the gift site posts the same body through the same route),
 * and the guards of the sandbox's pages. The pages themselves are tested in a browser (test/browser).
 */

let sb: TestSandbox;
const log: string[] = [];
let origin: string;
let brandId: string;
let counter = 0;

beforeAll(async () => {
  sb = await startSandbox({ log: (line) => log.push(line) });
  origin = new URL(sb.info.baseUrl).origin;
  brandId = (await sb.api('GET', '/me')).body.brands[0].id;
});
afterAll(() => sb.close());

async function newLink(): Promise<{ id: string; claimUrl: string }> {
  const created = await sb.admin('POST', '/links', { brandId, fullName: `Claim Player ${++counter}` });
  expect(created.status).toBe(201);
  return created.body;
}

type Gift = { productId: string; name: string; combinations: { variations: Record<string, string>; stock: number }[] };
async function gift(name: string): Promise<Gift> {
  return (await sb.admin('GET', '/gifts')).body.items.find((g: Gift) => g.name === name);
}

const ADDRESS = { street: 'Unter den Linden 77', city: 'Berlin', postalCode: '10117', country: 'DE' };
const recipient = (address: Record<string, unknown> = ADDRESS) => ({ name: 'Ada Lovelace', phone: '+4930901820', address });

describe('claimUrl', () => {
  test('names the sandbox\'s gift site in answers and in events, the seed\'s links included', async () => {
    const created = await newLink();
    expect(created.claimUrl).toBe(`${origin}/claim/${created.id}`);
    const feed = (await sb.api('GET', '/events?limit=100')).body.items as { data: { claimUrl?: string; id: string } }[];
    const urls = feed.map((e) => e.data.claimUrl).filter((u) => u !== undefined);
    expect(urls.length).toBeGreaterThan(4);
    for (const event of feed) if (event.data.claimUrl !== undefined) expect(event.data.claimUrl).toBe(`${origin}/claim/${event.data.id}`);
  });
});

describe('admin POST /links/{id}/claim with the player\'s choice', () => {
  test('checks the answers as an order does and changes nothing when one is refused', async () => {
    const link = await newLink();
    const hoodie = await gift('Hoodie');
    const refusals = [
      [{ productId: hoodie.productId, variations: { size: 'M', color: 'black' }, recipient: recipient({ ...ADDRESS, postalCode: undefined, city: 'B'.repeat(101) }) }, ['recipient.address.city', 'recipient.address.postalCode']],
      [{ productId: hoodie.productId, variations: { size: 'L', color: 'white' }, recipient: recipient() }, ['variations']],
      [{ productId: (await gift('Smart Speaker')).productId, variations: { color: 'sand' }, recipient: recipient({ street: 'Queen\'s Road 1', city: 'Hong Kong', country: 'HK' }) }, ['productId']],
      [{ productId: (await gift('Vintage Watch')).productId, variations: {}, recipient: recipient() }, ['productId']],
      [{ productId: hoodie.productId, variations: { size: 'M', color: 'black' }, recipient: { ...recipient(), phone: '030 1234' } }, ['recipient.phone']],
    ] as const;
    for (const [body, fields] of refusals) {
      const refused = await sb.admin('POST', `/links/${link.id}/claim`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
      expect(refused.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
    }
    expect((await sb.api('GET', `/personal-links/${link.id}`)).body.status).toBe('ACTIVE');
    expect((await gift('Hoodie')).combinations).toEqual(hoodie.combinations);
  });

  test('places the order for the chosen gift and combination, takes its stock, and keeps the address out of answers and logs', async () => {
    const link = await newLink();
    const hoodie = await gift('Hoodie');
    const stock = (g: Gift) => g.combinations.find((c) => c.variations.size === 'S' && c.variations.color === 'white')?.stock;
    const claimed = await sb.admin('POST', `/links/${link.id}/claim`, { productId: hoodie.productId, variations: { size: 'S', color: 'white' }, recipient: recipient() });
    expect(claimed.status).toBe(200);
    expect(claimed.body.link.status).toBe('CLAIMED');
    expect(claimed.body.order).toMatchObject({ productId: hoodie.productId, productName: 'Hoodie', variations: { size: 'S', color: 'white' }, deliveryCountry: 'DE', status: 'PROCESSING' });
    expect(stock(await gift('Hoodie'))).toBe((stock(hoodie) as number) - 1);
    const events = (await sb.api('GET', '/events?limit=100')).body.items.filter((e: { data: { id: string } }) => e.data.id === link.id);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['personal_link.created', 'personal_link.claimed']);
    const seen = [claimed.text, JSON.stringify(events), ...log].join('\n');
    for (const secret of ['Unter den Linden', '+4930901820', '10117', 'Ada Lovelace']) expect(seen).not.toContain(secret);
    // Claimed once: a second claim is refused whatever it sends.
    expect((await sb.admin('POST', `/links/${link.id}/claim`, {})).status).toBe(409);
  });
});

describe('the pages are guarded', () => {
  /** A page request with exactly this Host (fetch cannot set Host); resolves to its status. */
  const get = (path: string, headers: { Host?: string }) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(origin);
      const host = headers.Host ?? `${hostname}:${port}`;
      const req = request({ host: hostname, port, path, headers: { Accept: 'text/html', Host: host }, setHost: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  test('a foreign Host (DNS rebinding) is refused on the gift site and the workspace', async () => {
    const link = await newLink();
    expect(await get(`/claim/${link.id}`, {})).toBe(200);
    expect(await get(`/claim/${link.id}`, { Host: 'rebound.example' })).toBe(403);
    expect(await get('/_sandbox/', {})).toBe(200);
    expect(await get('/_sandbox/', { Host: 'rebound.example' })).toBe(403);
  });

  test('a form post without the page\'s token is 403 and changes nothing; the JSON admin API is unchanged', async () => {
    const link = await newLink();
    const form = (path: string, body: string) => fetch(`${origin}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
    expect((await form(`/_sandbox/links/${link.id}/cancel`, 'reason=x')).status).toBe(403);
    expect((await form(`/claim/${link.id}`, 'recipient.name=A')).status).toBe(403);
    expect((await sb.api('GET', `/personal-links/${link.id}`)).body.status).toBe('ACTIVE');
    // The same path as JSON is the admin call.
    expect((await sb.admin('POST', `/links/${link.id}/cancel`, { reason: 'x' })).body.status).toBe('CANCELLED');
    expect((await sb.admin('GET', '/clock')).headers.get('content-type')).toBe('application/json');
  });
});
