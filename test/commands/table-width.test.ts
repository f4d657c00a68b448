/**
 * Tables fit the terminal: against the sandbox, with long and wide (CJK, emoji) names planted, no
 * line of the table views is wider than an 80-column terminal, ids stay whole, and a 200-column
 * terminal shows more. Width is measured as the terminal does (string-width).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { runAtTerminal } from '../helpers/run.js';

const WIDE = '日本語のキャンペーン🎁ÄÖÜ'.repeat(5);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

let sb: TestSandbox;
let env: Record<string, string>;
let linkId: string;
let storeId: string;
let storeBrand: string;

beforeAll(async () => {
  sb = await startSandbox();
  const { state } = sb.sandbox;
  // Long, wide names where a person's tables show them.
  state.campaigns[0].name = WIDE;
  for (const brand of state.brands) brand.name = `${WIDE} ${brand.name}`;
  const stores = (await sb.api('GET', '/reward-stores')).body.items as { id: string; phase: string; brandIds: string[] }[];
  const live = stores.find((store) => store.phase === 'LIVE')!;
  storeId = live.id;
  storeBrand = live.brandIds[0];
  const field = state.tenant.customFields.find((f) => f.type === 'TEXT')!;
  const campaign = (await sb.api('GET', '/campaigns')).body.items[0] as { id: string; brandIds: string[] };
  const created = await sb.admin('POST', '/links', {
    campaignId: campaign.id,
    brandId: campaign.brandIds[0],
    fullName: WIDE,
    customFields: [{ fieldId: field.id, textValue: WIDE }],
  });
  expect(created.status).toBe(201);
  linkId = created.body.id;
  const store = (await sb.api('GET', `/reward-stores/${live.id}?brandId=${storeBrand}&country=DE`)).body;
  const gift = store.sections[0].items[0];
  const placed = await sb.api('POST', '/reward-store-orders', {
    idempotencyKey: 'width-order-1',
    body: {
      storeId: live.id,
      brandId: storeBrand,
      productId: gift.productId,
      variations: gift.combinations[0]?.variations ?? {},
      coinPrice: gift.coinPrice,
      recipient: { name: 'Rita Recipient', phone: '+4915112345678', address: { street: '1 Main St', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    },
  });
  expect(placed.status).toBe(201);
  env = { SVC_API_KEY: sb.apiKey('full'), SVC_BASE_URL: sb.info.baseUrl, SVC_CONFIG_DIR: '/nonexistent-svc-config' };
});
afterAll(() => sb.close());

const commands: Record<string, () => string[]> = {
  me: () => ['me'],
  'campaigns ls': () => ['campaigns', 'ls'],
  'links ls': () => ['links', 'ls'],
  'links get': () => ['links', 'get', linkId],
  'stores ls': () => ['stores', 'ls'],
  'stores show': () => ['stores', 'show', storeId, '--brand', storeBrand, '--country', 'DE'],
  'orders ls': () => ['orders', 'ls'],
};

function widest(text: string): number {
  return Math.max(...text.split('\n').map((line) => stringWidth(line)));
}

describe('tables fit the terminal', () => {
  for (const [name, argv] of Object.entries(commands)) {
    it(`${name}: no line wider than 80 columns, ids whole; 200 columns show more`, async () => {
      const narrow = await runAtTerminal(argv(), env, 80);
      expect(narrow.stderr).toBe('');
      expect(narrow.exitCode).toBe(0);
      for (const line of narrow.stdout.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
      const wide = await runAtTerminal(argv(), env, 200);
      expect(wide.exitCode).toBe(0);
      for (const line of wide.stdout.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(200);
      expect(widest(wide.stdout)).toBeGreaterThan(widest(narrow.stdout));
      // Every id shown at 80 columns is whole, so it can be pasted into another command.
      expect(narrow.stdout.match(/\b[0-9a-f]{8}-[0-9a-f-]*…/)).toBeNull();
      expect((narrow.stdout.match(UUID) ?? []).length).toBeGreaterThan(0);
    });
  }

  it('a table forced with -o table into a pipe is 80 columns wide', async () => {
    const { runInProcess } = await import('../helpers/run.js');
    const result = await runInProcess(['-o', 'table', 'campaigns', 'ls'], env);
    expect(result.exitCode).toBe(0);
    expect(widest(result.stdout)).toBeLessThanOrEqual(80);
    expect(result.stdout).toContain('…');
  });
});
