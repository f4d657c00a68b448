/**
 * `svc orders place`: one gift order from flags, from `--from-file` (the API's request body), or
 * guided on a TTY (see place-prompt.ts). On a TTY the order is summarised and confirmed unless --yes.
 * On `price_changed` a person is shown the new price and asked before placing again (with a new
 * idempotency key, since the body changes); a pipe gets exit 1 naming the current price.
 */
import { createHash } from 'node:crypto';
import { apiErrorCode } from '../../api/error-codes.js';
import { getMe, getRewardStore, placeRewardStoreOrder } from '../../api/resources.js';
import { ApiClient } from '../../api/client.js';
import type { CountryCode, Me, PlaceOrderRequest, RewardStore, RewardStoreOrder } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as resolve from '../../features/resolve.js';
import { namesFor } from '../../features/names.js';
import { ApiError, FailureError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { REQUEST_BODY_LIMIT, readFileOrStdin } from '../../core/stdin.js';
import { RequestChecks, checkIdempotencyKey, parseFieldFlags, promptAnswers, requireAnswers, unansweredRequired } from '../../features/fields.js';
import { ORDER_FLAGS, checkOrder, draftFromFlags, parseOrderFile, rejectBodyFlags, toRequest, type Draft, type PlaceOptions } from './place-body.js';
import { describeVariations, explainOrderRefusal, type OrderSource } from './place-errors.js';
import { askAgain, askCountry, canAskAgain, chooseVariations, describeOrderable, giftsOf, walk, type Shown } from './place-prompt.js';
import { formatPrice } from '../../features/price.js';
import { renderOrder } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, dryRunOption, examples, thousands } from '../declare.js';
import { API_LIMITS } from '../../api/types.js';

const flagName = (field: string): string => ORDER_FLAGS[field] ?? field;

/** What the guided flow cannot do without; when one is missing on a TTY, the walk starts. */
const REQUIRED_FLAGS: (keyof PlaceOptions)[] = ['store', 'brand', 'product', 'price', 'country', 'name', 'phone', 'street', 'city'];

interface Prepared {
  client: ApiClient;
  body: PlaceOrderRequest;
  shown?: Shown;
  /** GET /me, when it was already read to build the request (names for the views) */
  me?: Me;
  /** the answers the request was built from (flags and prompts), to correct one the service refuses */
  draft?: Draft;
}

/** Answers the refused fields of a 400 again and returns the corrected request; undefined when that cannot be done. */
type Correct = (error: ApiError) => Promise<PlaceOrderRequest | undefined>;

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

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  const givenKey = opts.idempotencyKey === undefined ? undefined : checkIdempotencyKey(opts.idempotencyKey);
  const { client, body, shown, me, draft } = opts.fromFile !== undefined ? await fromFile(ctx, opts, opts.fromFile) : await fromFlags(ctx, opts);
  // Running the same order file again (after a time-out, say) must not order twice: its key comes
  // from its content. Flags and the guided flow are a new decision each time: a fresh key.
  const idempotencyKey = givenKey ?? (opts.fromFile !== undefined ? fileKey(body) : ApiClient.newIdempotencyKey());
  if (ctx.io.canPrompt() && !opts.yes && !ctx.options.dryRun) await confirm(ctx, body, shown);
  const correct = draft && ctx.io.canPrompt() ? correctRefused(ctx, client, draft, shown) : undefined;
  const order = await placeWithConsent(ctx, client, body, idempotencyKey, shown, opts.fromFile !== undefined ? 'file' : 'flags', correct);
  // --dry-run: the request was printed instead of sent.
  if (order === undefined) return;
  const output = await ctx.output();
  if (ctx.format === 'table') {
    ctx.io.info(output.chalk.green(terminalSafeLine(`Order ${order.reference} placed: deduct ${formatPrice(order.coinPrice, order.currency)} from the player.`)));
  }
  await output.object(order, async (value) => renderOrder(output, value, await namesFor(client, ctx.signal, { me })));
}

function fileKey(body: PlaceOrderRequest): string {
  return `svc-order-${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

async function fromFile(ctx: Context, opts: PlaceOptions, path: string): Promise<Prepared> {
  rejectBodyFlags(opts);
  const text = (await readFileOrStdin(path, ctx.io.streams.stdin, '--from-file', ctx.signal, REQUEST_BODY_LIMIT)).toString('utf8');
  const draft = checkOrder(parseOrderFile(text, path), (field) => `${path === '-' ? 'stdin' : path}: ${field}`, true);
  return { client: await ctx.client(), body: toRequest(draft) };
}

async function fromFlags(ctx: Context, opts: PlaceOptions): Promise<Prepared> {
  const guided = ctx.io.canPrompt() && REQUIRED_FLAGS.some((key) => opts[key] === undefined);
  // Every given value is checked before any request; without a TTY, every required one too.
  const draft = checkOrder(draftFromFlags({ ...opts, brand: resolve.checkedLater(opts.brand) }), flagName, !guided);
  // A brand's name is looked up once every other flag has passed its checks.
  draft.brandId = await resolve.brandId(ctx, opts.brand);
  const client = await ctx.client();
  const me = (await getMe(client, { signal: ctx.signal })).body;
  const localeCheck = new RequestChecks(flagName);
  localeCheck.locale(draft.locale, 'locale', me.tenant.locales);
  localeCheck.throwIfAny();
  const fields = me.tenant.customFields ?? [];
  draft.customFields = parseFieldFlags(opts.field, fields);
  let shown: Shown | undefined;
  if (guided) {
    shown = await walk(ctx.prompter(), client, me, draft, ctx.signal, (line) => ctx.io.info(line));
  } else if (ctx.io.canPrompt()) {
    draft.customFields = await promptAnswers(ctx.prompter(), unansweredRequired(fields, draft.customFields), draft.customFields);
    // The confirmation shows names and the store's currency, not ids: read the store for them.
    if (!opts.yes) shown = await readShown(client, draft, ctx.signal);
  }
  requireAnswers(fields, draft.customFields ?? []);
  return { client, body: toRequest(checkOrder(draft, flagName, true)), shown, me, draft };
}

/** The store and gift as the order names them, for a person's confirmation; undefined when they cannot be read. */
async function readShown(client: ApiClient, draft: Draft, signal: AbortSignal): Promise<Shown | undefined> {
  try {
    const query = { brandId: draft.brandId, country: draft.recipient.address.country as CountryCode, locale: draft.locale };
    if (draft.storeId === undefined || draft.brandId === undefined) return undefined;
    const store: RewardStore = (await getRewardStore(client, draft.storeId, { ...query, brandId: draft.brandId }, { signal, retry: false })).body;
    return { store, gift: giftsOf(store).find((item) => item.productId === draft.productId) };
  } catch {
    return undefined;
  }
}

/**
 * A 400 whose errors[] name only recipient answers (a phone the service does not take, a postal code
 * its country needs): the person is told why and asked for those fields only; every other answer is
 * kept, and the corrected request is returned.
 */
function correctRefused(ctx: Context, client: ApiClient, draft: Draft, shown: Shown | undefined): Correct {
  return async (error) => {
    const fields = error.fieldErrors.map((entry) => entry.field);
    // The gift is not sold where it would go: ask for another country, with the reason.
    if (apiErrorCode(error) === 'gift_not_available' && error.problem.reason === 'NOT_SOLD_IN_COUNTRY') {
      ctx.io.info(terminalSafeLine(`The gift is not sold in ${draft.recipient.address.country}: choose another delivery country.`));
      draft.recipient.address.country = await askCountry(ctx.prompter());
      if (shown) shown.store = (await readShown(client, draft, ctx.signal))?.store ?? shown.store;
      return toRequest(checkOrder(draft, flagName, true));
    }
    // Options that match no orderable combination: list those that do and ask again.
    if (variationsRefused(error)) {
      const gift = (shown?.gift ? shown : await readShown(client, draft, ctx.signal))?.gift;
      if (!gift || gift.combinations.length === 0) return undefined;
      ctx.io.info(terminalSafeLine(`${describeVariations(draft.variations ?? {})} cannot be ordered; orderable now: ${describeOrderable(gift)}`));
      draft.variations = await chooseVariations(ctx.prompter(), gift, {}, (line) => ctx.io.info(terminalSafeLine(line)));
      return toRequest(checkOrder(draft, flagName, true));
    }
    if (apiErrorCode(error) !== 'invalid_request' || !canAskAgain(fields)) return undefined;
    for (const entry of error.fieldErrors) ctx.io.info(terminalSafeLine(`The service refused ${entry.field}: ${entry.message}`));
    await askAgain(ctx.prompter(), draft, fields);
    return toRequest(checkOrder(draft, flagName, true));
  };
}

/** Whether a refusal is about the options chosen: sold out, or no combination of the gift has them. */
function variationsRefused(error: ApiError): boolean {
  return error.code === 'out_of_stock' || (error.code === 'invalid_request' && error.fieldErrors.length > 0 && error.fieldErrors.every((entry) => entry.field.startsWith('variations')));
}

/**
 * Options that match no combination of the gift get the orderable combinations as their hint (the
 * store is read for them when needed); a sold-out one keeps the hint to look at the store.
 */
async function withOrderable(error: ApiError, client: ApiClient, body: PlaceOrderRequest, shown: Shown | undefined, signal: AbortSignal): Promise<ApiError> {
  if (error.code === 'out_of_stock' || !variationsRefused(error)) return error;
  const gift = shown?.gift ?? (await readShown(client, { storeId: body.storeId, brandId: body.brandId, productId: body.productId, locale: body.locale, recipient: { address: { country: body.recipient.address.country } } }, signal))?.gift;
  if (!gift || gift.combinations.length === 0) return error;
  const flags = gift.combinations.map((combination) => Object.entries(combination.variations).map(([name, value]) => `--variation ${name}=${value}`).join(' '));
  return error.explained(error.message, `orderable now: ${flags.join(' | ')}`);
}

/** The order as the person will be charged for it, then yes/no. Shown on stderr, never stored. */
async function confirm(ctx: Context, body: PlaceOrderRequest, shown: Shown | undefined): Promise<void> {
  const { chalk } = await ctx.output();
  for (const line of summary(body, shown)) ctx.io.info(terminalSafeLine(line).replace(/^(\S[^:]*:)/, (label) => chalk.bold(label)));
  const price = shown ? formatPrice(body.coinPrice, shown.store.currency) : body.coinPrice;
  if (!(await ctx.prompter().confirm(`Place this order for ${price}?`, false))) throw new FailureError('order not placed: you declined', 'declined');
}

export function summary(body: PlaceOrderRequest, shown: Shown | undefined): string[] {
  const { recipient } = body;
  const { address } = recipient;
  const gift = shown?.gift ? `${shown.gift.name} (${body.productId})` : body.productId;
  return [
    `Store:      ${shown ? `${shown.store.name} (${body.storeId})` : body.storeId}`,
    ...(shown?.store?.brand?.name ? [`Brand:      ${shown.store.brand.name} (${body.brandId})`] : []),
    `Gift:       ${gift}`,
    `Options:    ${Object.keys(body.variations).length ? describeVariations(body.variations) : 'none'}`,
    `Price:      ${shown ? formatPrice(body.coinPrice, shown.store.currency) : body.coinPrice}`,
    `Recipient:  ${recipient.name}, ${recipient.phone}${recipient.email ? `, ${recipient.email}` : ''}`,
    `Address:    ${[address.street, [address.postalCode, address.city].filter(Boolean).join(' '), address.country].join(', ')}`,
    ...(body.additionalDetails ? [`Details:    ${body.additionalDetails}`] : []),
  ];
}

/**
 * Places the order. A changed price is never accepted silently: on a TTY the person is asked, and a
 * yes places the order again at the new price under a new idempotency key (the old key belongs to
 * the old body and the service would refuse it as reused). A refused answer is asked again the same
 * way, when `correct` can (a person at a terminal, answers from flags or prompts).
 */
async function placeWithConsent(
  ctx: Context,
  client: ApiClient,
  first: PlaceOrderRequest,
  firstKey: string,
  shown: Shown | undefined,
  source: OrderSource,
  correct?: Correct,
): Promise<RewardStoreOrder | undefined> {
  let body = first;
  let idempotencyKey = firstKey;
  for (;;) {
    try {
      const response = await placeRewardStoreOrder(client, body, { idempotencyKey, signal: ctx.signal });
      return response.dryRun ? undefined : response.body;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const corrected = await correct?.(error);
      if (corrected) {
        // Another body: the first key belongs to the refused one.
        body = corrected;
        idempotencyKey = ApiClient.newIdempotencyKey();
        ctx.io.info(`note: placing again with the corrected answer and a new Idempotency-Key ${idempotencyKey}`);
        continue;
      }
      const current = error.problem.coinPrice;
      if (apiErrorCode(error) !== 'price_changed' || !current || !ctx.io.canPrompt()) throw await withOrderable(explainOrderRefusal(error, body, source), client, body, shown, ctx.signal);
      const price = (value: string) => (shown ? formatPrice(value, shown.store.currency) : value);
      ctx.io.info(terminalSafeLine(`The price changed: the order was sent at ${price(body.coinPrice)}, the gift now costs ${price(current)}. Nothing was ordered.`));
      if (!(await ctx.prompter().confirm(`Place the order again at ${price(current)}?`, false))) {
        throw new FailureError(`order not placed: the price changed to ${current} and you declined it`, 'price_changed');
      }
      body = { ...body, coinPrice: current };
      idempotencyKey = ApiClient.newIdempotencyKey();
      ctx.io.info(terminalSafeLine(`note: placing again at ${price(current)} with a new Idempotency-Key ${idempotencyKey}`));
    }
  }
}
