/**
 * `svc mcp` as an assistant uses it: the SDK's own client over stdio against the sandbox. The tool
 * list, every read tool called, invalid arguments, API errors as problem documents, a cancelled call,
 * and no key or webhook secret in anything the client receives.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { LINK_STATUSES } from '../../src/api/generated/constants.js';
import { signatureHeader } from '../../src/core/signature.js';
import { placeOrders } from '../helpers/orders.js';
import type { Reply } from '../sandbox/helpers.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { startMcp, toolCall, type McpSession } from '../helpers/mcp.js';

const READ_TOOLS = [
  'me',
  'campaigns_list',
  'links_list',
  'links_get',
  'stores_list',
  'stores_show',
  'orders_list',
  'orders_get',
  'events_list',
  'inspect',
  'events_stats',
  'refunds_due',
  'doctor',
  'verify_signature',
];

let sb: InProcessSandbox;

/** The API called directly with the full key (to set up what the tools then read). */
async function apiCall(method: string, path: string, options: { idempotencyKey?: string; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${sb.key('full').apiKey}`, 'content-type': 'application/json' };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${sb.baseUrl}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}
let mcp: McpSession;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startSandbox();
  env = { ...sb.env(), SVC_WEBHOOK_SECRET: sb.key('full').webhookSecret };
  mcp = await startMcp([], env);
}, 60_000);

describe('the tool list', () => {
  it('without --allow-write: every read tool, read-only, each with a description and an object schema; no write tool', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    for (const tool of tools) {
      expect({ name: tool.name, readOnly: tool.annotations?.readOnlyHint, destructive: tool.annotations?.destructiveHint, type: tool.inputSchema.type }).toEqual({ name: tool.name, readOnly: true, destructive: false, type: 'object' });
      expect(tool.description!.length).toBeGreaterThan(60);
    }
  });

  it('schemas come from the API description: links_list takes its filters, cursor and bounded page', async () => {
    const { tools } = await mcp.client.listTools();
    const schema = tools.find((tool) => tool.name === 'links_list')!.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['brandId', 'campaignId', 'status', 'after', 'limit']);
    expect(schema.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(schema.properties.status.enum).toEqual([...LINK_STATUSES]);
    expect(schema.required).toEqual([]);
  });

  it('--tools narrows the list', { timeout: 60_000 }, async () => {
    const narrow = await startMcp(['--tools', 'inspect,refunds_due'], env);
    expect((await narrow.client.listTools()).tools.map((tool) => tool.name)).toEqual(['inspect', 'refunds_due']);
    await narrow.close();
  });
});

describe('read tools', () => {
  it('me, campaigns_list, stores_list, stores_show: the API JSON', async () => {
    const me = await toolCall(mcp, 'me');
    expect(me.isError).toBe(false);
    expect(me.data.brands).toEqual(expect.arrayContaining([expect.objectContaining({ id: sb.key('full').brandIds[0] })]));
    const campaigns = await toolCall(mcp, 'campaigns_list', { limit: 2 });
    expect(campaigns.data.items).toHaveLength(2);
    expect(typeof campaigns.data.nextCursor).toBe('string');
    const stores = await toolCall(mcp, 'stores_list');
    const store = (stores.data.items as { id: string; phase: string; brandIds: string[] }[]).find((candidate) => candidate.phase === 'LIVE')!;
    const shown = await toolCall(mcp, 'stores_show', { storeId: store.id, brandId: store.brandIds[0], country: 'DE' });
    expect(shown.data).toMatchObject({ id: store.id, country: 'DE', brand: { id: store.brandIds[0] } });
  });

  it('links_list pages by cursor with names beside ids; links_get and inspect show one link and its history', async () => {
    const first = await toolCall(mcp, 'links_list', { limit: 1 });
    const second = await toolCall(mcp, 'links_list', { limit: 1, after: first.data.nextCursor });
    const [a] = first.data.items as Record<string, unknown>[];
    const [b] = second.data.items as Record<string, unknown>[];
    expect(a.id).not.toBe(b.id);
    expect(typeof a.brandName).toBe('string');
    const link = (await toolCall(mcp, 'links_get', { linkId: b.id })).data;
    expect(link).toMatchObject({ id: b.id, brandId: b.brandId, brandName: b.brandName });
    const inspected = await toolCall(mcp, 'inspect', { id: b.id });
    expect(inspected.data).toMatchObject({ kind: 'link', record: { id: b.id } });
    const events = inspected.data.events as { type: string; data: { id: string } }[];
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.data.id === b.id)).toBe(true);
  });

  it('orders_list, orders_get, events_list, events_stats, refunds_due', async () => {
    const [placed] = await placeOrders({ api: apiCall }, 1);
    expect((await sb.admin('POST', `/orders/${placed.id}/cancel`, {})).status).toBe(200);
    const orders = await toolCall(mcp, 'orders_list', { limit: 5 });
    const order = (orders.data.items as { id: string }[])[0];
    expect((await toolCall(mcp, 'orders_get', { orderId: order.id })).data).toMatchObject({ id: order.id });
    const events = await toolCall(mcp, 'events_list', { limit: 3 });
    expect(events.data.items).toHaveLength(3);
    const stats = await toolCall(mcp, 'events_stats', { since: '7d', bucket: '1d' });
    const totals = stats.data.totals as Record<string, number>;
    expect(Object.values(totals).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
    expect(stats.data.counts).toEqual(expect.arrayContaining([expect.objectContaining({ type: Object.keys(totals)[0] })]));
    const due = await toolCall(mcp, 'refunds_due', { fromStart: true, limit: 1 });
    expect(due.data).toMatchObject({ total: 1, nextCursor: null, refunds: [{ orderId: placed.id, coinPrice: placed.coinPrice }], totalsByCurrency: [{ total: placed.coinPrice, count: 1 }] });
  });

  it('doctor and verify_signature: the checks, a valid and an invalid signature with the cause', async () => {
    const doctor = await toolCall(mcp, 'doctor');
    expect((doctor.data.checks as { check: string }[]).map((check) => check.check)).toEqual(['config', 'key', 'api', 'clock', 'webhook']);
    const payload = '{"id":"evt_1","type":"order.cancelled"}';
    const now = 1_800_000_000;
    const header = signatureHeader(sb.key('full').webhookSecret, now, payload);
    expect((await toolCall(mcp, 'verify_signature', { header, payload, now })).data).toMatchObject({ valid: true, reason: null, secretSource: 'SVC_WEBHOOK_SECRET' });
    const changed = await toolCall(mcp, 'verify_signature', { header, payload: `${payload} `, now });
    expect(changed.data).toMatchObject({ valid: false, reason: 'no_matching_signature', expected: null });
  });
});

describe('errors', () => {
  it('invalid arguments are refused before any request, naming the argument', async () => {
    const result = await toolCall(mcp, 'links_get', { linkId: 'not-a-uuid' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('linkId');
    const extra = await toolCall(mcp, 'me', { verbose: true });
    expect(extra.isError).toBe(true);
    expect(extra.text).toContain('additional properties');
  });

  it("an API refusal is the service's problem document with svc's hint", async () => {
    const missing = await toolCall(mcp, 'links_get', { linkId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.data.error).toMatchObject({ status: 404, code: 'not_found', title: expect.any(String) });
    const store = await toolCall(mcp, 'stores_show', { storeId: '00000000-0000-4000-8000-000000000000', brandId: sb.key('full').brandIds[0], country: 'DE', locale: 'xx-XX' });
    expect(store.isError).toBe(true);
    expect((store.data.error as { code: string }).code).toMatch(/^(not_found|invalid_request)$/);
  });

  it('an error of svc itself: inspect of an id no link or order has', async () => {
    const result = await toolCall(mcp, 'inspect', { id: '00000000-0000-4000-8000-000000000000' });
    expect(result).toMatchObject({ isError: true, data: { error: { code: 'not_found', detail: 'no link or order with id 00000000-0000-4000-8000-000000000000 for this key' } } });
  });
});

describe('a cancelled call', () => {
  it('stops its request; the server goes on answering', { timeout: 60_000 }, async () => {
    const slow = await startMcp(['--debug'], env);
    await sb.admin('PUT', '/faults', { delayMs: 20_000 });
    try {
      const controller = new AbortController();
      const pending = slow.client.callTool({ name: 'orders_list', arguments: {} }, { signal: controller.signal });
      await vi.waitFor(() => expect(slow.stderr()).toContain(`> GET ${sb.baseUrl}/reward-store-orders`), { timeout: 10_000, interval: 20 });
      controller.abort();
      await expect(pending).rejects.toThrow();
    } finally {
      await sb.admin('PUT', '/faults', { delayMs: 0 });
    }
    expect((await toolCall(slow, 'me')).isError).toBe(false);
    await slow.close();
  });
});

describe('secrets', () => {
  it('no key or webhook secret in anything the client received, even from a refused key', { timeout: 60_000 }, async () => {
    const key = sb.key('full').apiKey;
    const wrong = `${key.slice(0, -4)}AAAA`;
    const refused = await startMcp([], { ...env, SVC_API_KEY: wrong });
    const result = await toolCall(refused, 'me');
    expect(result.isError).toBe(true);
    expect(result.data.error).toMatchObject({ status: 401 });
    await toolCall(refused, 'doctor');
    await refused.close();
    // What the client received, and svc's log (stderr) besides.
    const all = [...mcp.received, ...refused.received, mcp.stderr(), refused.stderr()].join('\n');
    expect(all.length).toBeGreaterThan(1000);
    for (const secret of [key, wrong, sb.key('full').webhookSecret]) expect(all).not.toContain(secret);
    expect(mcp.errors).toEqual([]);
  });
});
