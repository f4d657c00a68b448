/**
 * --dry-run on every changing command: each request it would send is printed as one JSON line
 * (Authorization redacted, the Idempotency-Key that would be used), nothing is sent, exit 0. Each
 * test compares whole output lines and shows that the sandbox (feed, links, orders, deliveries), the
 * ledger and the config directory are unchanged.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USER_AGENT } from '../../src/version.js';
import { cancelOrder, placeOrders } from '../helpers/orders.js';
import { runInProcess } from '../helpers/run.js';
import { startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sandbox, dir, env } = await startSandboxWithConfig(() => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' })));
});
afterEach(async () => {
  await sandbox.close();
});

const run = (...argv: string[]) => runInProcess(argv, env);

/** Everything a changing request could have changed, as the API and the admin API show it. */
async function state(): Promise<unknown> {
  const all = async (path: string) => {
    const items: unknown[] = [];
    let after = '';
    for (;;) {
      const page = await sandbox.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      items.push(...page.body.items);
      if (!page.body.nextCursor || page.body.items.length === 0) return items;
      after = page.body.nextCursor;
    }
  };
  return {
    events: await all('/events'),
    links: await all('/personal-links'),
    orders: await all('/reward-store-orders'),
    deliveries: (await sandbox.admin('GET', '/deliveries')).body,
  };
}

const headers = (extra: Record<string, string> = {}) => ({
  Authorization: '[redacted]',
  'User-Agent': USER_AGENT,
  Accept: 'application/json',
  'Content-Type': 'application/json',
  ...extra,
});
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

async function activeCampaign(): Promise<{ id: string }> {
  const campaigns = await sandbox.api('GET', '/campaigns?limit=100');
  return campaigns.body.items.find((c: { status: string; brandIds: string[] }) => c.status === 'ACTIVE' && c.brandIds.length === 1);
}

describe('--dry-run', () => {
  it('links create prints the POST it would send, with the given Idempotency-Key, and creates nothing', async () => {
    const campaign = await activeCampaign();
    const before = await state();
    const result = await run('links', 'create', '--campaign', campaign.id, '--name', 'Ada Lovelace', '--idempotency-key', 'preview-1', '--dry-run');
    expect(result).toEqual({
      exitCode: 0,
      stdout: line({
        method: 'POST',
        url: `${sandbox.info.baseUrl}/personal-links`,
        headers: headers({ 'Idempotency-Key': 'preview-1' }),
        body: { campaignId: campaign.id, fullName: 'Ada Lovelace' },
      }),
      stderr: '',
    });
    expect(await state()).toEqual(before);
  });

  it('links create without a key shows the fresh UUID it would use; the key is never printed', async () => {
    const campaign = await activeCampaign();
    const result = await run('links', 'create', '--campaign', campaign.id, '--name', 'Ada', '--dry-run');
    const request = JSON.parse(result.stdout);
    expect(request.headers['Idempotency-Key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.stdout).toBe(line({ method: 'POST', url: `${sandbox.info.baseUrl}/personal-links`, headers: headers({ 'Idempotency-Key': request.headers['Idempotency-Key'] }), body: { campaignId: campaign.id, fullName: 'Ada' } }));
    expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey('full'));
  });

  it('links create --from-file prints one request per row in file order (the keys a real run would use); a bad row goes to stderr', async () => {
    const campaign = await activeCampaign();
    const file = join(dir, 'players.jsonl');
    writeFileSync(file, [JSON.stringify({ campaignId: campaign.id, fullName: 'One' }), JSON.stringify({ campaignId: campaign.id, fullName: 'Two' }), '{not json'].join('\n'));
    const before = await state();
    const first = await run('links', 'create', '--from-file', file, '--dry-run');
    const keys = first.stdout.split('\n').filter(Boolean).map((text) => JSON.parse(text).headers['Idempotency-Key']);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^svc-bulk-[0-9a-f]{64}$/);
    expect(first.stdout).toBe(
      ['One', 'Two']
        .map((fullName, i) =>
          line({ method: 'POST', url: `${sandbox.info.baseUrl}/personal-links`, headers: headers({ 'Idempotency-Key': keys[i] }), body: { campaignId: campaign.id, fullName } }),
        )
        .join(''),
    );
    expect(first.stderr).toMatch(/^\{"row":3,"ok":false,"error":\{.*\}\}\ndry run: 2 requests printed, nothing sent; 1 of 3 rows would fail before any request\n$/);
    // docs/output.md: a dry run exits 0; the row that would fail is reported on stderr.
    expect(first.exitCode).toBe(0);
    expect(await state()).toEqual(before);
    // The same file again: the same keys (so the real run after a preview replays nothing twice).
    expect((await run('links', 'create', '--from-file', file, '--dry-run')).stdout).toBe(first.stdout);
  });

  it('links cancel prints the cancel request; the link stays ACTIVE', async () => {
    const campaign = await activeCampaign();
    const created = await sandbox.api('POST', '/personal-links', { idempotencyKey: 'c-1', body: { campaignId: campaign.id, fullName: 'Grace' } });
    const before = await state();
    const result = await run('links', 'cancel', created.body.id, '--reason', 'sent twice', '--idempotency-key', 'cancel-1', '--dry-run');
    expect(result).toEqual({
      exitCode: 0,
      stdout: line({ method: 'POST', url: `${sandbox.info.baseUrl}/personal-links/${created.body.id}:cancel`, headers: headers({ 'Idempotency-Key': 'cancel-1' }), body: { reason: 'sent twice' } }),
      stderr: '',
    });
    expect(await state()).toEqual(before);
    expect((await sandbox.api('GET', `/personal-links/${created.body.id}`)).body.status).toBe(created.body.status);
  });

  it('orders place --from-file prints the order with the key the file would use; nothing is ordered', async () => {
    const [template] = await placeOrders(sandbox, 1);
    const body = {
      storeId: template.storeId,
      brandId: template.brandId,
      productId: template.productId,
      variations: {},
      coinPrice: template.coinPrice,
      recipient: { name: 'Test Player', phone: '+4915112345678', address: { street: 'Teststr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    };
    const file = join(dir, 'order.json');
    writeFileSync(file, JSON.stringify(body));
    const before = await state();
    const result = await run('orders', 'place', '--from-file', file, '--dry-run');
    const key = JSON.parse(result.stdout).headers['Idempotency-Key'];
    expect(key).toMatch(/^svc-order-[0-9a-f]{64}$/);
    expect(result).toEqual({ exitCode: 0, stdout: line({ method: 'POST', url: `${sandbox.info.baseUrl}/reward-store-orders`, headers: headers({ 'Idempotency-Key': key }), body }), stderr: '' });
    expect(await state()).toEqual(before);
  });

  it('webhooks test prints the request and sends no ping', async () => {
    const before = await state();
    const result = await run('webhooks', 'test', '--dry-run');
    // No body and so no Content-Type: the description gives POST /webhooks:test no request body.
    const { 'Content-Type': _none, ...noBody } = headers();
    expect(result).toEqual({ exitCode: 0, stdout: line({ method: 'POST', url: `${sandbox.info.baseUrl}/webhooks:test`, headers: noBody, body: null }), stderr: '' });
    expect(await state()).toEqual(before);
  });

  it('api with a method other than GET prints the request (its -H headers too); GET still runs', async () => {
    const campaign = await activeCampaign();
    const before = await state();
    const post = await run('api', 'POST', '/personal-links', '--data', JSON.stringify({ campaignId: campaign.id, fullName: 'Raw' }), '--idempotency-key', 'raw-1', '-H', 'Accept-Language: de-DE', '--dry-run');
    expect(post).toEqual({
      exitCode: 0,
      stdout: line({
        method: 'POST',
        url: `${sandbox.info.baseUrl}/personal-links`,
        headers: headers({ 'Idempotency-Key': 'raw-1', 'Accept-Language': 'de-DE' }),
        body: { campaignId: campaign.id, fullName: 'Raw' },
      }),
      stderr: '',
    });
    expect(await state()).toEqual(before);
    const get = await run('api', 'GET', '/me', '--dry-run');
    expect(get.exitCode).toBe(0);
    expect(JSON.parse(get.stdout).key).toBeDefined();
  });

  it('refunds run lists what it would pay, runs no CMD and writes no ledger, cursor or lock', async () => {
    const [order] = await placeOrders(sandbox, 1);
    await cancelOrder(sandbox, order.id);
    const marker = join(dir, 'paid');
    const ledger = join(dir, 'ledger.jsonl');
    const configBefore = readdirSync(dir).sort();
    const due = await run('refunds', 'due', '--ledger', ledger);
    expect(due.stdout).toContain(order.id);
    const result = await run('refunds', 'run', '--exec', `touch ${marker}`, '--ledger', ledger, '--dry-run');
    expect(result).toEqual({ exitCode: 0, stdout: due.stdout, stderr: `dry run: these would be paid by touch ${marker}; nothing was run or recorded\n` });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(ledger)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(configBefore);
    // Still due: a real look shows the same.
    expect((await run('refunds', 'due', '--ledger', ledger)).stdout).toBe(due.stdout);
    expect((await run('refunds', 'run', '--exec', 'true', '--dry-run', '--follow')).exitCode).toBe(2);
  });

  it('refunds mark prints the entry it would record and records nothing', async () => {
    const [order] = await placeOrders(sandbox, 1);
    await cancelOrder(sandbox, order.id);
    const ledger = join(dir, 'ledger.jsonl');
    const result = await run('refunds', 'mark', order.id, '--ledger', ledger, '--dry-run');
    expect(result.exitCode).toBe(0);
    const entry = JSON.parse(result.stdout);
    expect(result.stdout).toBe(line({ orderId: order.id, coinPrice: order.coinPrice, currency: order.currency, eventId: entry.eventId, refundedAt: entry.refundedAt }));
    expect(result.stderr).toBe(`dry run: nothing was recorded in ${ledger}\n`);
    expect(existsSync(ledger)).toBe(false);
  });
});
