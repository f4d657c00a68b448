/** `orders place` end to end in a pipe: flags, --from-file, replays and every refusal, against `svc sandbox`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/cleanup.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;
let live: { id: string; brandIds: string[] };
let scheduled: { id: string; brandIds: string[] };
/** gifts of the LIVE store read for Germany, by English name */
let gifts: Record<string, { productId: string; coinPrice: string }>;

const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
  const stores = jsonLines((await svc(['stores', 'ls', '--all'], { env })).stdout);
  live = stores.find((store) => store.phase === 'LIVE');
  scheduled = stores.find((store) => store.phase === 'SCHEDULED');
  const store = JSON.parse((await svc(['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '-o', 'json'], { env })).stdout);
  gifts = Object.fromEntries(store.sections.flatMap((section: { items: { name: string }[] }) => section.items.map((gift) => [gift.name, gift])));
});

/** Flags of an order that the sandbox accepts: a hoodie (M, black) to Berlin at the German price. */
function hoodieFlags(overrides: Record<string, string | undefined> = {}): string[] {
  const flags: Record<string, string | undefined> = {
    '--store': live.id,
    '--brand': live.brandIds[0],
    '--product': gifts.Hoodie.productId,
    '--price': gifts.Hoodie.coinPrice,
    '--country': 'DE',
    '--name': 'Ada Lovelace',
    '--phone': '+4915112345678',
    '--street': 'Hauptstr. 1',
    '--city': 'Berlin',
    '--postal-code': '10115',
    ...overrides,
  };
  const variations = overrides['--variation'] === undefined ? ['--variation', 'size=M', '--variation', 'color=black'] : [];
  return ['orders', 'place', ...Object.entries(flags).flatMap(([flag, value]) => (value === undefined || flag === '--variation' ? [] : [flag, value])), ...variations];
}

describe.concurrent('orders place', () => {
  it('places an order from flags and prints it as one JSON line without the recipient', async () => {
    const run = await svc([...hoodieFlags(), '--email', 'ada@example.com', '--details', 'ring twice', '--locale', 'de-DE', '--field', 'VIP tier=Gold'], { env });
    expect(run.exitCode).toBe(0);
    const [order] = jsonLines(run.stdout);
    expect(order).toMatchObject({ storeId: live.id, productId: gifts.Hoodie.productId, variations: { size: 'M', color: 'black' }, coinPrice: gifts.Hoodie.coinPrice, deliveryCountry: 'DE' });
    expect(run.stdout).not.toContain('Lovelace');
    expect(run.stdout).not.toContain('+4915112345678');
  });

  it('places a gift without options with variations {}', async () => {
    const run = await svc(hoodieFlags({ '--product': gifts['Wireless Headphones'].productId, '--price': gifts['Wireless Headphones'].coinPrice, '--variation': '' }), { env });
    expect(run.exitCode).toBe(0);
    expect(jsonLines(run.stdout)[0].variations).toEqual({});
  });

  it('replays with the same --idempotency-key', async () => {
    const args = [...hoodieFlags(), '--idempotency-key', `order-${Date.now()}`];
    const first = await svc(args, { env });
    const second = await svc(args, { env });
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toContain('replayed');
  });

  it('takes the request body from --from-file, a path or - for stdin', async () => {
    const body = {
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gifts['Coffee Gift Card'].productId,
      variations: {},
      coinPrice: gifts['Coffee Gift Card'].coinPrice,
      recipient: { name: 'Ada', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    };
    const path = join(tempDir(), 'order.json');
    writeFileSync(path, JSON.stringify(body));
    const fromPath = await svc(['orders', 'place', '--from-file', path], { env });
    expect(fromPath.exitCode).toBe(0);
    const fromStdin = await svc(['orders', 'place', '--from-file', '-'], { env, input: JSON.stringify(body, null, 2) });
    expect(fromStdin.exitCode).toBe(0);
    expect(jsonLines(fromStdin.stdout)[0].productId).toBe(body.productId);
    // The same order content again is the same order: replayed, not placed twice.
    expect(fromStdin.stderr).toContain('replayed');
    expect(jsonLines(fromStdin.stdout)[0].id).toBe(jsonLines(fromPath.stdout)[0].id);
  });

  it('a changed price read from a file says to change the file, not a flag', async () => {
    const body = {
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gifts['Coffee Gift Card'].productId,
      variations: {},
      coinPrice: '1',
      recipient: { name: 'Ada', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    };
    const result = await svc(['orders', 'place', '--from-file', '-'], { env, input: JSON.stringify(body) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`"coinPrice": "${gifts['Coffee Gift Card'].coinPrice}" in the file`);
  });

  it.each([
    ['--store: required', ['--store']],
    ['--name: required', ['--name']],
    ['--phone: required', ['--phone']],
    ['--price: required', ['--price']],
  ])('exits 2 without a TTY when a required flag is missing: %s', async (message, [flag]) => {
    const run = await svc(hoodieFlags({ [flag]: undefined }), { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it.each([
    ['--phone: must be an E.164 number', { '--phone': '0151 1234' }],
    ['--country: must be a two-letter', { '--country': 'DEU' }],
    ['--price: must be a decimal number', { '--price': 'cheap' }],
    ['--store: not a valid id', { '--store': 'store-1' }],
    ['--name: too long', { '--name': 'n'.repeat(101) }],
    ['--city: too long', { '--city': 'c'.repeat(101) }],
    ['--street: too long', { '--street': 's'.repeat(256) }],
    ['--postal-code: too long', { '--postal-code': '1'.repeat(21) }],
    ['--details: too long', { '--details': 'd'.repeat(2_001) }],
    ['--email: not an e-mail address', { '--email': 'ada-at-example' }],
    ['--locale: fr-FR is not enabled', { '--locale': 'fr-FR' }],
    ['--field: no custom field with id or label "Colour"', { '--field': 'Colour=red' }],
  ])('exits 2 naming the flag: %s', async (message, overrides) => {
    const run = await svc(hoodieFlags(overrides), { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('refuses a repeated or malformed --variation (exit 2)', async () => {
    const repeated = await svc([...hoodieFlags(), '--variation', 'size=L'], { env });
    expect(repeated.exitCode).toBe(2);
    expect(repeated.stderr).toContain('--variation: size given more than once');
    const malformed = await svc([...hoodieFlags({ '--variation': '' }), '--variation', 'size'], { env });
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('--variation: expected NAME=VALUE');
  });

  it('refuses --from-file with body flags, unreadable files and bad JSON (exit 2)', async () => {
    const both = await svc(['orders', 'place', '--from-file', '-', '--name', 'Ada'], { env, input: '{}' });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('remove --name');
    const missing = await svc(['orders', 'place', '--from-file', '/nonexistent/order.json'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const broken = await svc(['orders', 'place', '--from-file', '-'], { env, input: '{"storeId":' });
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain('not valid JSON');
    const incomplete = await svc(['orders', 'place', '--from-file', '-'], { env, input: '{"storeId":"x","recipient":{"phone":"1"}}' });
    expect(incomplete.exitCode).toBe(2);
    expect(incomplete.stderr).toContain('stdin: recipient.phone');
  });

  it('gives a pipe exit 1 and the current price on price_changed', async () => {
    const run = await svc(hoodieFlags({ '--price': '1200' }), { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`error: price_changed: the price changed: the order was sent at 1200, the gift now costs ${gifts.Hoodie.coinPrice}`);
    expect(run.stderr).toContain(`--price ${gifts.Hoodie.coinPrice}`);
  });

  it('explains out_of_stock, gift_not_available, reward_store_not_live and a missing postal code in one line (exit 1)', async () => {
    const soldOut = await svc([...hoodieFlags({ '--variation': '' }), '--variation', 'size=L', '--variation', 'color=white'], { env });
    expect(soldOut.exitCode).toBe(1);
    expect(soldOut.stderr).toContain('error: out_of_stock: sold out: size=L, color=white cannot be ordered now');

    const speaker = gifts['Smart Speaker'];
    const notSold = await svc([...hoodieFlags({ '--product': speaker.productId, '--price': speaker.coinPrice, '--country': 'HK', '--postal-code': undefined, '--variation': '' }), '--variation', 'color=sand'], { env });
    expect(notSold.exitCode).toBe(1);
    expect(notSold.stderr).toContain('error: gift_not_available: the gift cannot be ordered: the gift is not sold in the delivery country');

    const notLive = await svc(hoodieFlags({ '--store': scheduled.id, '--brand': scheduled.brandIds[0] }), { env });
    expect(notLive.exitCode).toBe(1);
    expect(notLive.stderr).toContain('error: reward_store_not_live: the store is not taking orders');

    const noPostalCode = await svc(hoodieFlags({ '--postal-code': undefined }), { env });
    expect(noPostalCode.exitCode).toBe(1);
    expect(noPostalCode.stderr).toContain('recipient.address.postalCode: required');
    expect(noPostalCode.stderr).toContain('hint: DE uses postal codes: pass --postal-code');
  });

  it('exits 4 for a key without REWARD_STORES', async () => {
    const run = await svc(hoodieFlags(), { env: sandbox.env('links') });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toContain('insufficient_scope');
  });
});
