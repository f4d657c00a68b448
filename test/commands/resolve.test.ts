/**
 * Identifiers people have (features/resolve.ts): an order reference wherever an order id is asked
 * for, campaign and brand names, and links found by a custom-field answer — against the sandbox, and
 * against the strict API double where what matters is which pages are read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiDouble } from '../helpers/double.js';
import { placeOrders } from '../helpers/orders.js';
import { runInProcess } from '../helpers/run.js';
import { startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
const run = (...argv: string[]) => runInProcess(argv, env);
const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));


beforeAll(async () => {
  ({ sandbox, env } = await startSandboxWithConfig());
});
afterAll(async () => {
  await sandbox.close();
});

describe('order references', () => {
  it('orders get, inspect and events tail --order take SVC-… as the order it names (any case)', async () => {
    const [first, second] = await placeOrders(sandbox, 2);
    expect(second.reference).toMatch(/^SVC-\d{6}$/);
    const byId = await run('-o', 'json', 'orders', 'get', String(second.id));
    const byReference = await run('-o', 'json', 'orders', 'get', String(second.reference).toLowerCase());
    expect(byReference).toEqual(byId);
    expect(JSON.parse(byReference.stdout).id).toBe(second.id);

    const inspected = await run('-o', 'json', 'inspect', String(first.reference));
    expect(inspected.exitCode).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ kind: 'order', record: { id: first.id, reference: first.reference } });

    await sandbox.admin('POST', `/orders/${first.id}/cancel`);
    const tail = await run('events', 'tail', '--order', String(first.reference));
    expect(jsonLines(tail.stdout).map((event) => [event.type, event.data.id])).toEqual([['order.cancelled', first.id]]);
  });

  it('a reference no order of this key has: exit 3, one line naming it, and where claim orders are seen', async () => {
    const result = await run('orders', 'get', 'SVC-999999');
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: not_found: ID: no order with reference SVC-999999 among the \d+ orders this key placed\n/);
    expect(result.stderr).toContain('hint: orders placed by a player claiming a link belong to no key, so the API never shows them to a key; the team sees them in the workspace\n');
  });

  it('--debug shows the resolution: which read, how many pages', async () => {
    const [order] = await placeOrders(sandbox, 1);
    const result = await run('--debug', 'orders', 'get', String(order.reference), '-o', 'jsonl');
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`resolve: ID ${order.reference} is order ${order.id} (GET /reward-store-orders, 1 page)\n`);
  });
});

describe('campaign and brand names', () => {
  it('links ls --campaign and --brand by name, ignoring case, list what the ids list', async () => {
    const campaigns = jsonLines((await run('campaigns', 'ls')).stdout);
    const campaign = campaigns.find((candidate) => candidate.brandIds.length > 1)!;
    const me = JSON.parse((await run('-o', 'json', 'me')).stdout);
    const brand = me.brands.find((candidate: { id: string }) => candidate.id === campaign.brandIds[0]);
    const created = await run('links', 'create', '--campaign', campaign.name.toUpperCase(), '--brand', ` ${brand.name.toLowerCase()} `, '--name', 'Ada');
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ campaignId: campaign.id, brandId: brand.id });

    const byName = await run('links', 'ls', '--campaign', campaign.name, '--brand', brand.name);
    const byId = await run('links', 'ls', '--campaign', campaign.id, '--brand', brand.id);
    expect(byName).toEqual(byId);
    expect(jsonLines(byName.stdout).length).toBeGreaterThan(0);
  });

  it('a name nothing has: one line naming the flag and what there is', async () => {
    const brand = await run('links', 'ls', '--brand', 'No Such Casino');
    expect(brand.exitCode).toBe(2);
    expect(brand.stderr).toBe('error: usage_error: --brand: no brand named "No Such Casino" for this key (its brands: "Lucky Star Casino", "Golden Reels", "Northern Lights Bingo")\n');
    const campaign = await run('links', 'ls', '--campaign', 'No Such Campaign');
    expect(campaign.exitCode).toBe(3);
    expect(campaign.stderr).toBe('error: not_found: --campaign: no campaign named "No Such Campaign" that this key can use\nhint: svc campaigns ls (and --status COMPLETED) lists them\n');
  });
});

describe('links by a custom-field answer', () => {
  it('links ls --field "Player ID=…" (label or id) finds the links holding that answer, and only those', async () => {
    const campaign = jsonLines((await run('campaigns', 'ls')).stdout)[0];
    const made = [];
    for (const player of ['P-100', 'P-200', 'P-100']) {
      made.push(JSON.parse((await run('links', 'create', '--campaign', campaign.id, '--brand', campaign.brandIds[0], '--name', 'Ada', '--field', `Player ID=${player}`)).stdout));
    }
    const byLabel = await run('links', 'ls', '--field', 'player id=p-100');
    expect(byLabel.exitCode).toBe(0);
    // Newest first, as the API lists them.
    expect(jsonLines(byLabel.stdout).map((link) => link.id)).toEqual([made[2].id, made[0].id]);
    const fieldId = JSON.parse((await run('-o', 'json', 'me')).stdout).tenant.customFields.find((field: { label: string }) => field.label === 'Player ID').id;
    const byId = await run('links', 'ls', '--field', `${fieldId}=P-200`);
    expect(jsonLines(byId.stdout).map((link) => link.id)).toEqual([made[1].id]);
    const none = await run('links', 'ls', '--field', 'Player ID=P-404');
    expect(none).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('an unknown field is a usage error listing the fields', async () => {
    const result = await run('links', 'ls', '--field', 'Shoe size=42');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('error: usage_error: --field: no custom field with id or label "Shoe size" (the account\'s fields: "Player ID", "VIP tier", "Marketing consent")\n');
  });
});

describe('reads only the pages it needs (strict double)', () => {
  const BRAND_A = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
  const BRAND_B = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
  const ORDER = 'afbb54b2-acb6-4805-b783-ffed9f4194df';
  const me = (brands: { id: string; name: string }[]) => ({
    tenant: { id: BRAND_A, locales: ['en-US'], approvalRequired: false, customFields: [] },
    key: { name: 'full', scopes: ['PERSONAL_LINKS', 'REWARD_STORES'], webhookUrl: null },
    brands,
    environment: 'production',
  });

  it('a reference stops at the page that holds it: the next page is never read', async () => {
    const api = await new ApiDouble().start();
    const order = { id: ORDER, reference: 'SVC-000008' };
    api.on('GET /reward-store-orders?limit=100', { body: { items: [{ id: BRAND_B, reference: 'SVC-000009' }, order], nextCursor: 'c2' } });
    api.on(`GET /reward-store-orders/${ORDER}`, { body: order });
    const result = await runInProcess(['orders', 'get', 'SVC-000008', '-o', 'jsonl'], api.env('/nonexistent-svc-config'));
    await api.stop();
    expect(result).toEqual({ exitCode: 0, stdout: `${JSON.stringify(order)}\n`, stderr: '' });
    expect(api.requests.map((request) => request.path)).toEqual(['/reward-store-orders?limit=100', `/reward-store-orders/${ORDER}`]);
  });

  it('a brand name two brands have: exit 2 listing both with their ids, nothing listed', async () => {
    const api = await new ApiDouble().start();
    api.on('GET /me', { body: me([{ id: BRAND_A, name: 'Lucky Star' }, { id: BRAND_B, name: 'lucky star' }]) });
    const result = await runInProcess(['links', 'ls', '--brand', 'LUCKY STAR'], api.env('/nonexistent-svc-config'));
    await api.stop();
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `error: usage_error: --brand: "LUCKY STAR" names 2 brands: Lucky Star (${BRAND_A}), lucky star (${BRAND_B}); give the id\n`,
    });
  });

  it('a campaign name two campaigns have: exit 2 listing both; an id is taken with no lookup', async () => {
    const api = await new ApiDouble().start();
    const campaign = (id: string, name: string) => ({ id, name, status: 'ACTIVE', brandIds: [], expiresAt: null });
    api.on('GET /campaigns?status=ACTIVE&limit=100', { body: { items: [campaign(BRAND_A, 'Spring')], nextCursor: 'p2' } });
    api.on('GET /campaigns?status=ACTIVE&limit=100&after=p2', { body: { items: [campaign(BRAND_B, 'spring')], nextCursor: null } });
    const ambiguous = await runInProcess(['events', 'tail', '--campaign', 'Spring'], api.env('/nonexistent-svc-config'));
    await api.stop();
    expect(ambiguous).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: --campaign: "Spring" names 2 campaigns: Spring (${BRAND_A}), spring (${BRAND_B}); give the id\n` });
  });
});
