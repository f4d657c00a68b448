/** `orders place` in a pipe (no TTY), in-process: flags, --from-file, replays and every refusal, against `svc sandbox`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { jsonLines, replayedNote } from '../helpers/lines.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/cleanup.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;
let live: { id: string; brandIds: string[] };
let scheduled: { id: string; brandIds: string[] };
/** gifts of the LIVE store read for Germany, by English name */
let gifts: Record<string, { productId: string; coinPrice: string }>;


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
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${JSON.stringify(order)}\n`);
    expect(order.reference).toMatch(/^SVC-\d{6}$/);
    expect(order.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    // The whole order: no recipient (name, phone, address, e-mail) in it.
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      reference: order.reference,
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gifts.Hoodie.productId,
      productName: 'Kapuzenpullover',
      variations: { size: 'M', color: 'black' },
      status: 'PROCESSING',
      coinPrice: gifts.Hoodie.coinPrice,
      currency: { name: 'Sternmünzen', symbol: 'SM' },
      deliveryCountry: 'DE',
      customFields: [
        { fieldId: expect.any(String), textValue: null, checked: null },
        { fieldId: expect.any(String), textValue: 'Gold', checked: null },
        { fieldId: expect.any(String), textValue: null, checked: null },
      ],
      shipment: null,
      createdAt: order.createdAt,
      updatedAt: order.createdAt,
    });
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
    expect(first.stderr).toBe('');
    expect(second.stderr).toBe(replayedNote(args.at(-1)!));
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
    expect(fromStdin.stderr).toMatch(/^note: replayed: the service returned the stored response for Idempotency-Key svc-order-[0-9a-f]{64}; nothing ran twice\n$/);
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
    const price = gifts['Coffee Gift Card'].coinPrice;
    expect(result.stderr).toBe(
      `error: price_changed: the price changed: the order was sent at 1, the gift now costs ${price}; nothing was ordered\nhint: confirm the new price with the player, then run again with "coinPrice": "${price}" in the file\n`,
    );
    expect(result.stdout).toBe('');
  });

  it.each([
    ['--store: required', ['--store']],
    ['--name: required', ['--name']],
    ['--phone: required', ['--phone']],
    ['--price: required', ['--price']],
  ])('exits 2 without a TTY when a required flag is missing: %s', async (message, [flag]) => {
    const run = await svc(hoodieFlags({ [flag]: undefined }), { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`error: usage_error: ${message}\n`);
    expect(run.stdout).toBe('');
  });

  it.each([
    ['--phone: must be an E.164 number such as +4915112345678, got 0151 1234', { '--phone': '0151 1234' }],
    ['--country: must be a two-letter ISO 3166-1 country code, got DEU', { '--country': 'DEU' }],
    ['--price: must be a decimal number such as 1200 or 12.50, got cheap', { '--price': 'cheap' }],
    ['--store: not a valid id (expected a UUID): store-1', { '--store': 'store-1' }],
    ['--name: too long (101 characters, at most 100)', { '--name': 'n'.repeat(101) }],
    ['--city: too long (101 characters, at most 100)', { '--city': 'c'.repeat(101) }],
    ['--street: too long (256 characters, at most 255)', { '--street': 's'.repeat(256) }],
    ['--postal-code: too long (21 characters, at most 20)', { '--postal-code': '1'.repeat(21) }],
    ['--details: too long (2001 characters, at most 2000)', { '--details': 'd'.repeat(2_001) }],
    ['--email: not an e-mail address: ada-at-example', { '--email': 'ada-at-example' }],
    ['--locale: fr-FR is not enabled for the account (enabled: en-US, de-DE)', { '--locale': 'fr-FR' }],
    ['--field: no custom field with id or label "Colour" (the account\'s fields: "Player ID", "VIP tier", "Marketing consent")', { '--field': 'Colour=red' }],
  ])('exits 2 naming the flag: %s', async (message, overrides) => {
    const run = await svc(hoodieFlags(overrides), { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`error: usage_error: ${message}\n`);
    expect(run.stdout).toBe('');
  });

  it('refuses a repeated or malformed --variation (exit 2)', async () => {
    const repeated = await svc([...hoodieFlags(), '--variation', 'size=L'], { env });
    expect(repeated.exitCode).toBe(2);
    expect(repeated.stderr).toBe('error: usage_error: --variation: size given more than once\n');
    const malformed = await svc([...hoodieFlags({ '--variation': '' }), '--variation', 'size'], { env });
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toBe('error: usage_error: --variation: expected NAME=VALUE, got size\n');
  });

  it('refuses --from-file with body flags, unreadable files and bad JSON (exit 2)', async () => {
    const both = await svc(['orders', 'place', '--from-file', '-', '--name', 'Ada'], { env, input: '{}' });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toBe('error: usage_error: --from-file: the file is the whole request; remove --name\n');
    const missing = await svc(['orders', 'place', '--from-file', '/nonexistent/order.json'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe('error: usage_error: --from-file: cannot read /nonexistent/order.json: no such file\n');
    const broken = await svc(['orders', 'place', '--from-file', '-'], { env, input: '{"storeId":' });
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toBe('error: usage_error: --from-file: - is not valid JSON: Unexpected end of JSON input\n');
    const incomplete = await svc(['orders', 'place', '--from-file', '-'], { env, input: '{"storeId":"x","recipient":{"phone":"1"}}' });
    expect(incomplete.exitCode).toBe(2);
    expect(incomplete.stderr).toBe(
      'error: usage_error: stdin: storeId: not a valid id (expected a UUID): x; stdin: brandId: required; stdin: productId: required; stdin: coinPrice: required; stdin: recipient.name: required; ' +
        'stdin: recipient.phone: must be an E.164 number such as +4915112345678, got 1; stdin: recipient.address.street: required; stdin: recipient.address.city: required; stdin: recipient.address.country: required\n',
    );
  });

  it('gives a pipe exit 1 and the current price on price_changed', async () => {
    const run = await svc(hoodieFlags({ '--price': '1200' }), { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `error: price_changed: the price changed: the order was sent at 1200, the gift now costs ${gifts.Hoodie.coinPrice}; nothing was ordered\nhint: confirm the new price with the player, then run again with --price ${gifts.Hoodie.coinPrice}\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('explains out_of_stock, gift_not_available, reward_store_not_live and a missing postal code in one line (exit 1)', async () => {
    const soldOut = await svc([...hoodieFlags({ '--variation': '' }), '--variation', 'size=L', '--variation', 'color=white'], { env });
    expect(soldOut.exitCode).toBe(1);
    expect(soldOut.stderr).toBe(
      `error: out_of_stock: sold out: size=L, color=white cannot be ordered now; nothing was ordered\nhint: see what can be ordered: svc stores show ${live.id} --brand ${live.brandIds[0]} --country DE\n`,
    );

    const speaker = gifts['Smart Speaker'];
    const notSold = await svc([...hoodieFlags({ '--product': speaker.productId, '--price': speaker.coinPrice, '--country': 'HK', '--postal-code': undefined, '--variation': '' }), '--variation', 'color=sand'], { env });
    expect(notSold.exitCode).toBe(1);
    expect(notSold.stderr).toBe(
      `error: gift_not_available: the gift cannot be ordered: the gift is not sold in the delivery country\nhint: see what can be ordered: svc stores show ${live.id} --brand ${live.brandIds[0]} --country HK\n`,
    );

    const notLive = await svc(hoodieFlags({ '--store': scheduled.id, '--brand': scheduled.brandIds[0] }), { env });
    expect(notLive.exitCode).toBe(1);
    expect(notLive.stderr).toBe('error: reward_store_not_live: the store is not taking orders: it has not opened yet or it has ended\nhint: list stores and their phase: svc stores ls\n');

    const noPostalCode = await svc(hoodieFlags({ '--postal-code': undefined }), { env });
    expect(noPostalCode.exitCode).toBe(1);
    expect(noPostalCode.stderr).toBe(
      'error: invalid_request: recipient.address.postalCode: A postal code is required for deliveries to DE.\n  recipient.address.postalCode: required: A postal code is required for deliveries to DE.\nhint: DE uses postal codes: pass --postal-code\n',
    );
  });

  it('exits 4 for a key without REWARD_STORES', async () => {
    const run = await svc(hoodieFlags(), { env: sandbox.env('links') });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toBe('error: insufficient_scope: This call needs the REWARD_STORES scope, which the key lacks.\n');
  });
});
