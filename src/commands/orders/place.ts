/**
 * `svc orders place`: one gift order from flags, from `--from-file` (the API's request body), or
 * guided on a TTY (src/features/orders/guided.ts). On a TTY the order is summarised and confirmed
 * unless --yes; placing it, a changed price or a refused answer included, is src/features/orders/place.ts.
 */
import { ApiClient } from '../../api/client.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { checkIdempotencyKey } from '../../features/fields.js';
import { namesFor } from '../../app/names.js';
import { confirmOrder, placeWithConsent } from '../../features/orders/place.js';
import { fileKey, orderFromFile, orderFromFlags } from '../../features/orders/prepare.js';
import { variationFlags, type Draft } from '../../features/orders/request.js';
import { formatPrice } from '../../features/price.js';
import * as resolve from '../../features/resolve.js';
import { renderOrder } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, dryRunOption, examples, thousands } from '../declare.js';
import { API_LIMITS } from '../../api/types.js';

type PlaceOptions = OptionsOf<typeof declare>;

/** Flags that set a body member; `--from-file` takes the whole body and excludes them. */
const BODY_OPTIONS: (keyof PlaceOptions)[] = ['store', 'brand', 'product', 'price', 'country', 'name', 'phone', 'street', 'city', 'postalCode', 'email', 'details', 'locale'];

export function declare(command: Command) {
  return command
    .description('place a gift order for a player (POST /reward-store-orders)')
    .option('--store <id>', 'store id (a LIVE store)')
    .option('--brand <id|name>', 'brand the store was read for (id or name)')
    .option('--product <id>', 'gift (productId)')
    .option('--variation <name=value>', 'one value per option dimension (repeatable)', collect)
    .option('--price <coins>', 'the coin price the player saw')
    .option('--country <cc>', 'delivery country, two letters')
    .option('--name <name>', `recipient name (max ${API_LIMITS.recipientName})`)
    .option('--phone <e164>', 'recipient phone in E.164, e.g. +4915112345678')
    .option('--street <street>', `street and number (max ${API_LIMITS.street})`)
    .option('--city <city>', `city (max ${API_LIMITS.city})`)
    .option('--postal-code <code>', `postal code, where the country uses one (max ${API_LIMITS.postalCode})`)
    .option('--email <email>', 'recipient e-mail for status updates')
    .option('--details <text>', `additional details (max ${thousands(API_LIMITS.additionalDetails)})`)
    .option('--locale <locale>', 'language for e-mails and the product name (default en-US)')
    .option('--field <field=value>', 'custom field answer by id or label (repeatable)', collect)
    .option('--from-file <file>', 'the request body as JSON, a regular file up to 10 MB (- reads stdin); the same file again replays, never orders twice')
    .option('--idempotency-key <key>', 'retry safely with the same key')
    .option('-y, --yes', 'place without the final confirmation on a TTY')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'svc orders place                                   # guided on a TTY',
        'svc orders place --store <id> --brand <id> --product <id> --variation size=M --variation color=black \\\n      --price 1100 --country DE --name "Ada Lovelace" --phone +4915112345678 --street "Hauptstr. 1" --city Berlin --postal-code 10115',
        'svc orders place --from-file order.json',
        'svc orders place --from-file order.json --dry-run          # the POST it would send, with its Idempotency-Key',
      ),
    );
}

export async function run(ctx: Context, opts: PlaceOptions): Promise<void> {
  const givenKey = opts.idempotencyKey === undefined ? undefined : checkIdempotencyKey(opts.idempotencyKey);
  if (opts.fromFile !== undefined) rejectBodyFlags(opts);
  const prepared =
    opts.fromFile !== undefined
      ? await orderFromFile(ctx, opts.fromFile)
      : await orderFromFlags(ctx, draftFromFlags({ ...opts, brand: resolve.checkedLater(opts.brand) }), { brand: opts.brand, field: opts.field, confirming: !opts.yes });
  // Running the same order file again (after a time-out, say) must not order twice: its key comes
  // from its content. Flags and the guided flow are a new decision each time: a fresh key.
  const idempotencyKey = givenKey ?? (opts.fromFile !== undefined ? fileKey(prepared.body) : ApiClient.newIdempotencyKey());
  if (ctx.io.canPrompt() && !opts.yes && !ctx.options.dryRun) await confirmOrder(ctx, prepared.body, prepared.shown);
  const order = await placeWithConsent(ctx, prepared, idempotencyKey, opts.fromFile !== undefined ? 'file' : 'flags');
  // --dry-run: the request was printed instead of sent.
  if (order === undefined) return;
  const output = await ctx.output();
  if (ctx.format === 'table') {
    ctx.io.info(output.chalk.green(terminalSafeLine(`Order ${order.reference} placed: deduct ${formatPrice(order.coinPrice, order.currency)} from the player.`)));
  }
  await output.object(order, async (value) => renderOrder(output, value, await namesFor(prepared.client, ctx.signal, { me: prepared.me })));
}

/** The order as the flags give it; every value is checked with the rest (src/features/orders/request.ts). */
export function draftFromFlags(opts: PlaceOptions): Draft {
  return {
    storeId: opts.store,
    brandId: opts.brand,
    productId: opts.product,
    variations: variationFlags(opts.variation),
    coinPrice: opts.price,
    locale: opts.locale,
    recipient: {
      name: opts.name,
      email: opts.email,
      phone: opts.phone,
      address: { street: opts.street, city: opts.city, postalCode: opts.postalCode, country: opts.country?.toUpperCase() },
    },
    additionalDetails: opts.details,
  };
}

/** With --from-file, flags that would also set the body are a mistake, not an override. */
function rejectBodyFlags(opts: PlaceOptions): void {
  const given = BODY_OPTIONS.filter((key) => opts[key] !== undefined).map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  if (opts.variation?.length) given.push('--variation');
  if (opts.field?.length) given.push('--field');
  if (given.length > 0) throw new UsageError(`--from-file: the file is the whole request; remove ${given.join(', ')}`);
}
