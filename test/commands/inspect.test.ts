/** `svc inspect` against the in-process sandbox: a link's and an order's history equal the feed read independently. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as inspect, sinceStep } from '../../src/commands/inspect.js';
import { runInProcess } from '../helpers/run.js';
import { testContext } from '../helpers/terminal.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by assertions
type Json = any;

let box: TestSandbox;
let env: Record<string, string>;
let linkId: string;
let orderId: string;

beforeAll(async () => {
  box = await startSandbox();
  env = { SVC_API_KEY: box.apiKey('full'), SVC_BASE_URL: box.info.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
  const me = (await box.api('GET', '/me')).body;
  const brandId = me.brands[0].id;
  // A link with a history, and another one whose events must not show up.
  linkId = (await box.admin('POST', '/links', { brandId, fullName: 'Ada' })).body.id;
  await box.admin('POST', '/links', { brandId, fullName: 'Bob' });
  await box.admin('POST', `/links/${linkId}/claim`);
  // An order this key placed, approved, shipped and delivered by the team.
  const live = (await box.api('GET', '/reward-stores')).body.items.find((store: Json) => store.phase === 'LIVE');
  const store = (await box.api('GET', `/reward-stores/${live.id}?brandId=${live.brandIds[0]}&country=DE`)).body;
  const gift = store.sections.flatMap((section: Json) => section.items).find((item: Json) => item.dimensions.length === 0);
  const placed = await box.api('POST', '/reward-store-orders', {
    idempotencyKey: 'inspect-test-order',
    body: {
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gift.productId,
      variations: {},
      coinPrice: gift.coinPrice,
      recipient: { name: 'Rita', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    },
  });
  expect(placed.status, placed.text).toBe(201);
  orderId = placed.body.id;
  for (const step of ['approve', 'ship', 'deliver']) {
    if (placed.body.status !== 'REQUESTED' && step === 'approve') continue;
    expect((await box.admin('POST', `/orders/${orderId}/${step}`, {})).status).toBe(200);
  }
});
afterAll(async () => box?.close());

/** Every feed event, read with plain HTTP. */
async function feed(): Promise<Json[]> {
  const items: Json[] = [];
  let after: string | null = null;
  for (;;) {
    const page: Json = (await box.api('GET', `/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`)).body;
    if (page.items.length === 0) return items;
    items.push(...page.items);
    after = page.nextCursor;
  }
}
const run = (...argv: string[]) => runInProcess(argv, env);

describe('svc inspect', () => {
  it("a link's and an order's events are the feed's events about them, oldest first", async () => {
    const all = await feed();
    for (const id of [linkId, orderId]) {
      const expected = all.filter((event) => event.data?.id === id);
      expect(expected.length).toBeGreaterThanOrEqual(2);
      const result = await run('-o', 'jsonl', 'inspect', id);
      expect(result).toEqual({ exitCode: 0, stdout: expected.map((event) => `${JSON.stringify(event)}\n`).join(''), stderr: '' });
    }
  });

  it('-o json is one object: kind, the record as GET returns it, and the events', async () => {
    const all = await feed();
    const link = await run('-o', 'json', 'inspect', linkId);
    expect(JSON.parse(link.stdout)).toEqual({ kind: 'link', record: (await box.api('GET', `/personal-links/${linkId}`)).body, events: all.filter((event) => event.data?.id === linkId) });
    const order = await run('-o', 'json', 'inspect', orderId);
    expect(JSON.parse(order.stdout)).toEqual({ kind: 'order', record: (await box.api('GET', `/reward-store-orders/${orderId}`)).body, events: all.filter((event) => event.data?.id === orderId) });
  });

  it('--since leaves out what occurred before it (to the microsecond); --fields and csv choose the columns', async () => {
    const events = (await feed()).filter((event) => event.data?.id === linkId);
    const claimed = events.find((event) => event.type === 'personal_link.claimed');
    const since = await run('-o', 'csv', 'inspect', linkId, '--since', claimed.occurredAt, '--fields', 'occurredAt,type,data.status');
    expect(since).toEqual({ exitCode: 0, stdout: `occurredAt,type,data.status\n${claimed.occurredAt},personal_link.claimed,CLAIMED\n`, stderr: '' });
    const fields = await run('-o', 'jsonl', 'inspect', linkId, '--fields', 'type,data.status');
    expect(fields.stdout).toBe(events.map((event) => `${JSON.stringify({ type: event.type, data: { status: event.data.status } })}\n`).join(''));
  });

  it('a table: the summary, then the timeline', async () => {
    const record = (await box.api('GET', `/personal-links/${linkId}`)).body;
    const events = (await feed()).filter((event) => event.data?.id === linkId);
    const result = await run('-o', 'table', 'inspect', linkId);
    const brandName = (await box.api('GET', '/me')).body.brands.find((brand: Json) => brand.id === record.brandId).name;
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 12)).toEqual([
      `Personal link ${linkId}`,
      '  Status     CLAIMED',
      `  Brand      ${brandName} (${record.brandId})`,
      '  Campaign   CATALOG',
      `  Created    ${record.createdAt}`,
      `  Updated    ${record.updatedAt}`,
      // The claim's order belongs to no key: said, so nobody concludes svc lost it.
      "  Order      The player's claim placed an order. Orders placed by a claim belong",
      '             to no key, so the API does not show them to API keys (not in svc',
      "             orders, inspect or the event feed); the operator's team sees the",
      '             order in the workspace.',
      '',
      `History: ${events.length} events`,
    ]);
    const rows = lines.slice(12).map((line) => line.replace(/[│┌┐└┘─┬┴├┤┼]/g, ' ').trim()).filter(Boolean).map((line) => line.split(/\s{2,}/));
    // Off a terminal the table is 80 columns wide: times to the second, and the time since the step before.
    const second = (time: string) => time.replace(/\.\d{6}Z$/, 'Z');
    expect(rows).toEqual([
      ['Time', 'After', 'Type', 'Status'],
      ...events.map((event, index) => [second(event.occurredAt), ...(index === 0 ? [] : [sinceStep(events[index - 1].occurredAt, event.occurredAt)]), event.type, event.data.status]),
    ]);
    expect(sinceStep('2026-11-21T10:00:00.000000Z', '2026-11-21T10:02:10.500000Z')).toBe('+2m 10s');
    expect(sinceStep('2026-11-21T10:00:00.000000Z', '2026-11-22T12:00:05.000000Z')).toBe('+1d 2h');
    expect(sinceStep('2026-11-21T10:00:00.000000Z', '2026-11-21T10:00:00.350000Z')).toBe('+350ms');
    expect(sinceStep('2026-11-21T10:00:00.000000Z', '2026-11-21T13:00:00.000000Z')).toBe('+3h');
  });

  it('exit 3 with one line when neither a link nor an order has the id; exit 2 for a malformed id', async () => {
    const missing = await run('inspect', '3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e');
    expect(missing).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: 'error: not_found: no link or order with id 3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e for this key\nhint: inspect takes a personal link id or a store order id this key can read\n',
    });
    const malformed = await run('inspect', 'nope');
    expect(malformed).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: ID: not a valid id (expected a UUID): nope\n' });
  });

  it("a key without the links scope: the link lookup's 403 is a miss, and another key's order is not found (exit 3)", async () => {
    const result = await runInProcess(['-o', 'jsonl', 'inspect', orderId, '--fields', 'type'], { ...env, SVC_API_KEY: box.apiKey('stores') });
    // The order was placed by another key: for this key it is not found.
    expect(result.exitCode).toBe(3);
  });

  it('a progress line on a terminal while the feed is read, cleared at the end', async () => {
    const { ctx, terminal } = testContext({ tty: { stderr: true }, env, options: { output: 'jsonl' } });
    try {
      await inspect(ctx, {}, [linkId]);
    } finally {
      await ctx.close();
    }
    await terminal.settled();
    const all = await feed();
    const mine = all.filter((event) => event.data?.id === linkId).length;
    // One page of 100 or fewer events here, then the empty page that ends the feed.
    expect(all.length).toBeLessThan(100);
    expect(terminal.stderr).toBe(
      `\r\x1b[2KReading the event feed: 1 page, ${all.length} events, ${mine} about this record` +
        `\r\x1b[2KReading the event feed: 2 pages, ${all.length} events, ${mine} about this record` +
        '\r\x1b[2K',
    );
  });
});
