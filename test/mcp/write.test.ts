/**
 * The write tools of `svc mcp --allow-write` against the sandbox: a dry run sends nothing, a retried
 * create (the idempotency key svc returned, sent again) creates once, cancel is destructive and
 * idempotent, an order needs the coin price the player saw. Without the flag, writes are refused
 * before serving.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { startMcp, toolCall, type McpSession } from '../helpers/mcp.js';
import { svc } from '../helpers/svc.js';

let sb: InProcessSandbox;
let mcp: McpSession;
let campaignId: string;

/** How many links of the key carry this player's name. */
function linksNamed(fullName: string): number {
  // The sandbox's own state holds the name the API never shows.
  return sb.sandbox.state.links.filter((link) => link.fullName === fullName).length;
}

beforeAll(async () => {
  sb = await startSandbox();
  mcp = await startMcp(['--allow-write'], sb.env());
  const campaigns = await toolCall(mcp, 'campaigns_list', { brandId: sb.key('full').brandIds[0] });
  campaignId = (campaigns.data.items as { id: string }[])[0].id;
}, 60_000);

it('--allow-write lists the write tools after the read tools, with their hints', async () => {
  const { tools } = await mcp.client.listTools();
  expect(tools.map((tool) => tool.name).slice(-4)).toEqual(['verify_signature', 'links_create', 'links_cancel', 'orders_place']);
  expect(tools).toHaveLength(17);
  const hints = Object.fromEntries(tools.slice(-3).map((tool) => [tool.name, [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint, tool.annotations?.idempotentHint]]));
  expect(hints).toEqual({ links_create: [false, false, false], links_cancel: [false, true, true], orders_place: [false, false, false] });
});

describe('links_create', () => {
  it('dryRun returns the request it would send, key redacted, and creates nothing', async () => {
    const result = await toolCall(mcp, 'links_create', { campaignId, fullName: 'Dry Run', brandId: sb.key('full').brandIds[0], dryRun: true });
    const key = result.data.idempotencyKey as string;
    expect(result.data).toEqual({
      dryRun: true,
      idempotencyKey: key,
      request: {
        method: 'POST',
        url: `${sb.baseUrl}/personal-links`,
        headers: expect.objectContaining({ Authorization: '[redacted]', 'Idempotency-Key': key, 'Content-Type': 'application/json' }),
        body: { campaignId, fullName: 'Dry Run', brandId: sb.key('full').brandIds[0] },
      },
    });
    expect(linksNamed('Dry Run')).toBe(0);
  });

  it('a retried call with the idempotency key svc made creates the link once', async () => {
    const args = { campaignId, fullName: 'Ada Retry', brandId: sb.key('full').brandIds[0] };
    const first = await toolCall(mcp, 'links_create', args);
    expect(first.isError).toBe(false);
    const key = first.data.idempotencyKey as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const again = await toolCall(mcp, 'links_create', { ...args, idempotencyKey: key });
    expect(again.data).toMatchObject({ idempotencyKey: key, replayed: true, link: { id: (first.data.link as { id: string }).id } });
    expect(first.data.replayed).toBe(false);
    expect(linksNamed('Ada Retry')).toBe(1);
  });

  it("a refusal is the API's problem document with its field errors", async () => {
    const result = await toolCall(mcp, 'links_create', { campaignId, fullName: 'Nobody', brandId: sb.key('full').brandIds[0], locale: 'xx-XX' });
    expect(result.isError).toBe(true);
    expect(result.data.error).toMatchObject({ status: 400, code: 'invalid_request', errors: [expect.objectContaining({ field: 'locale', code: 'not_enabled' })] });
    expect(linksNamed('Nobody')).toBe(0);
  });
});

describe('links_cancel', () => {
  it('cancels a link this key created; cancelling again changes nothing', async () => {
    const created = await toolCall(mcp, 'links_create', { campaignId, fullName: 'Cancel Me', brandId: sb.key('full').brandIds[0] });
    const linkId = (created.data.link as { id: string }).id;
    const cancelled = await toolCall(mcp, 'links_cancel', { linkId, reason: 'duplicate' });
    expect(cancelled.data).toMatchObject({ link: { id: linkId, status: 'CANCELLED' }, replayed: false });
    const again = await toolCall(mcp, 'links_cancel', { linkId, reason: 'duplicate' });
    expect(again.data).toMatchObject({ link: { id: linkId, status: 'CANCELLED' } });
  });
});

describe('orders_place', () => {
  it('needs the coin price the player saw: a wrong one is price_changed with the current price; the right one places once', async () => {
    const stores = await toolCall(mcp, 'stores_list');
    const store = (stores.data.items as { id: string; phase: string; brandIds: string[] }[]).find((candidate) => candidate.phase === 'LIVE')!;
    const brandId = store.brandIds[0];
    const shown = await toolCall(mcp, 'stores_show', { storeId: store.id, brandId, country: 'DE' });
    const gift = (shown.data.sections as { items: { productId: string; coinPrice: string; dimensions: unknown[] }[] }[]).flatMap((section) => section.items).find((item) => item.dimensions.length === 0)!;
    const order = {
      storeId: store.id,
      brandId,
      productId: gift.productId,
      variations: {},
      recipient: { name: 'Test Player', phone: '+4915112345678', address: { street: 'Teststr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    };
    const missing = await toolCall(mcp, 'orders_place', order);
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('coinPrice');
    const wrong = await toolCall(mcp, 'orders_place', { ...order, coinPrice: '0.01' });
    expect(wrong.data.error).toMatchObject({ status: 409, code: 'price_changed', coinPrice: gift.coinPrice });
    const placed = await toolCall(mcp, 'orders_place', { ...order, coinPrice: gift.coinPrice, idempotencyKey: 'mcp-order-1' });
    const retried = await toolCall(mcp, 'orders_place', { ...order, coinPrice: gift.coinPrice, idempotencyKey: 'mcp-order-1' });
    expect(placed.data).toMatchObject({ order: { coinPrice: gift.coinPrice }, idempotencyKey: 'mcp-order-1', replayed: false });
    expect(retried.data).toMatchObject({ order: { id: (placed.data.order as { id: string }).id }, replayed: true });
  });
});

describe('without --allow-write', () => {
  it('--tools naming a write tool, or no tool at all, is a usage error before serving (exit 2)', { timeout: 60_000 }, async () => {
    const write = await svc(['mcp', '--tools', 'me,links_create'], { env: sb.env(), input: '' });
    expect({ exitCode: write.exitCode, stdout: write.stdout, stderr: write.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --tools: links_create changes data and needs --allow-write' });
    const unknown = await svc(['mcp', '--tools', 'pay_refund'], { env: sb.env(), input: '' });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^error: usage_error: --tools: no tool named pay_refund \(tools: me, campaigns_list, .*orders_place\)$/);
  });
});
