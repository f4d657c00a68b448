import { describe, expect, test } from 'vitest';
import { parseTarget } from '../../src/sandbox/http.js';
import { perTestSandboxes } from './helpers.js';

/*
 * What the sandbox does once instead of per request (CPU per GET /me at the floor of a bare
 * node:http server) must not change a single answer: the kept /me answer follows every
 * change the team makes, the plain-target reading equals URL parsing, and request logging that
 * nobody reads costs nothing.
 */

const fresh = perTestSandboxes();

describe('GET /me, answered from what was kept', () => {
  test('follows every change of the key and the account', async () => {
    const sb = await fresh();
    const me = async () => (await sb.api('GET', '/me')).body;
    const first = await me();
    expect(await me()).toEqual(first);
    const brandId = first.brands[0].id;
    const fieldId = first.tenant.customFields[0].id;

    expect((await sb.admin('PATCH', '/keys/full', { webhookUrl: 'https://hooks.example/in' })).status).toBe(200);
    expect((await me()).key.webhookUrl).toBe('https://hooks.example/in');
    expect((await sb.admin('PATCH', '/keys/full', { scopes: ['REWARD_STORES'] })).status).toBe(200);
    expect((await me()).key.scopes).toEqual(['REWARD_STORES']);
    expect((await sb.admin('PATCH', '/keys/full', { brandIds: [brandId] })).status).toBe(200);
    expect((await me()).brands).toEqual([first.brands[0]]);
    expect((await sb.admin('PATCH', '/settings', { approvalRequired: true })).status).toBe(200);
    expect((await me()).tenant.approvalRequired).toBe(true);
    expect((await sb.admin('PATCH', '/settings', { requiredCustomFieldIds: [fieldId] })).status).toBe(200);
    expect((await me()).tenant.customFields.map((f: { required: boolean }) => f.required)).toEqual([true, false, false]);

    expect((await sb.admin('PATCH', '/keys/full', { webhookUrl: null, scopes: first.key.scopes, brandIds: first.brands.map((b: { id: string }) => b.id) })).status).toBe(200);
    expect((await sb.admin('PATCH', '/settings', { approvalRequired: false, requiredCustomFieldIds: [] })).status).toBe(200);
    expect(await me()).toEqual(first);
    // Another key's answer is its own.
    expect((await sb.api('GET', '/me', { as: 'links' })).body.key.name).toBe('links');
  });

  test('a revoked key or API access turned off is refused at once, though its header was read before', async () => {
    const sb = await fresh();
    expect((await sb.api('GET', '/me', { as: 'other' })).status).toBe(200);
    await sb.admin('PATCH', '/keys/other', { revoked: true });
    expect((await sb.api('GET', '/me', { as: 'other' })).body.code).toBe('invalid_api_key');
    await sb.admin('PATCH', '/keys/other', { revoked: false });
    await sb.admin('PATCH', '/settings', { apiAccess: false });
    expect((await sb.api('GET', '/me', { as: 'other' })).body.code).toBe('invalid_api_key');
    await sb.admin('PATCH', '/settings', { apiAccess: true });
    expect((await sb.api('GET', '/me', { as: 'other' })).status).toBe(200);
  });
});

describe('request targets', () => {
  test.each([
    '/v1/me',
    '/v1/me/',
    '/',
    '/v1/openapi.json',
    '/v1/personal-links/3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e:cancel',
    '/v1/personal-links?limit=2&status=ACTIVE&after=abc_-',
    "/v1/campaigns?brandId=a+b&x=%20%C3%A9&y='\"<>",
    '/v1/../v1/me',
    '/v1/./me',
    '//v1/me',
    '/v1/%6De',
    '/v1/me?a=1#frag',
    '/v1\\me',
    '/v1/me?q=é',
    '/images/hoodie-front-320.png',
  ])('%s reads as URL parsing reads it', (raw) => {
    const url = new URL(raw, 'http://sandbox.invalid');
    const target = parseTarget(raw);
    expect(target.path).toBe(decodeURIComponent(url.pathname));
    expect([...target.query]).toEqual([...url.searchParams]);
  });

  test('a path that does not decode is 404', () => {
    expect(() => parseTarget('/v1/%E0%A4%A')).toThrow(expect.objectContaining({ status: 404, code: 'not_found' }));
  });
});

describe('request logging', () => {
  test('a line per request when asked for, none (and no work) when not', async () => {
    const logged: string[] = [];
    const quiet: string[] = [];
    const loud = await fresh({ log: (line) => logged.push(line) });
    const silent = await fresh({ log: (line) => quiet.push(line), logRequests: false });
    for (const sb of [loud, silent]) expect((await sb.api('GET', '/me')).status).toBe(200);
    await loud.close();
    expect(logged).toEqual([expect.stringMatching(/^GET \/v1\/me 200 \d+\.\dms$/)]);
    expect(quiet).toEqual([]);
  });
});
