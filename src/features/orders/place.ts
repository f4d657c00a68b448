/**
 * Placing a prepared order (prepare.ts): the person's confirmation on a TTY, then the POST. On
 * `price_changed` a person is shown the new price and asked before placing again (with a new
 * idempotency key, since the body changes); a pipe gets exit 1 naming the current price. A refused
 * answer is asked again, alone, where a person can answer it.
 */
import { ApiClient } from '../../api/client.js';
import { apiErrorCode } from '../../api/error-codes.js';
import { placeRewardStoreOrder } from '../../api/resources.js';
import type { PlaceOrderRequest, RewardStoreOrder } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { ApiError, DeclinedError, FailureError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { formatPrice } from '../price.js';
import { askCountry, chooseVariations, describeOrderable, readShown, type Shown } from './guided.js';
import type { PreparedOrder } from './prepare.js';
import { askAgain, canAskAgain } from './recipient.js';
import { describeVariations, explainOrderRefusal, type OrderSource } from './refusal.js';
import { checkOrder, flagName, toRequest, type Draft } from './request.js';

/** Answers the refused fields of a 400 again and returns the corrected request; undefined when that cannot be done. */
type Correct = (error: ApiError) => Promise<PlaceOrderRequest | undefined>;

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
export async function confirmOrder(ctx: Context, body: PlaceOrderRequest, shown: Shown | undefined): Promise<void> {
  const { chalk } = await ctx.output();
  for (const line of summary(body, shown)) ctx.io.info(terminalSafeLine(line).replace(/^(\S[^:]*:)/, (label) => chalk.bold(label)));
  if (!(await ctx.prompter().confirm(`Place this order for ${shownPrice(shown, body.coinPrice)}?`, false))) throw new DeclinedError('Order not placed (you declined); nothing was sent.');
}

function summary(body: PlaceOrderRequest, shown: Shown | undefined): string[] {
  const { recipient } = body;
  const { address } = recipient;
  const gift = shown?.gift ? `${shown.gift.name} (${body.productId})` : body.productId;
  return [
    `Store:      ${shown ? `${shown.store.name} (${body.storeId})` : body.storeId}`,
    ...(shown?.store?.brand?.name ? [`Brand:      ${shown.store.brand.name} (${body.brandId})`] : []),
    `Gift:       ${gift}`,
    `Options:    ${Object.keys(body.variations).length ? describeVariations(body.variations) : 'none'}`,
    `Price:      ${shownPrice(shown, body.coinPrice)}`,
    `Recipient:  ${recipient.name}, ${recipient.phone}${recipient.email ? `, ${recipient.email}` : ''}`,
    `Address:    ${[address.street, [address.postalCode, address.city].filter(Boolean).join(' '), address.country].join(', ')}`,
    ...(body.additionalDetails ? [`Details:    ${body.additionalDetails}`] : []),
  ];
}

/**
 * Places the order. A changed price is never accepted silently: on a TTY the person is asked, and a
 * yes places the order again at the new price under a new idempotency key (the old key belongs to
 * the old body and the service would refuse it as reused). A refused answer is asked again the same
 * way, when a person at a terminal can correct it (answers from flags or prompts).
 */
export async function placeWithConsent(ctx: Context, prepared: PreparedOrder, firstKey: string, source: OrderSource): Promise<RewardStoreOrder | undefined> {
  const { client, body: first, shown, draft } = prepared;
  const correct = draft && ctx.io.canPrompt() ? correctRefused(ctx, client, draft, shown) : undefined;
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
      await acceptNewPrice(ctx, body, current, shown);
      body = { ...body, coinPrice: current };
      idempotencyKey = ApiClient.newIdempotencyKey();
      ctx.io.info(terminalSafeLine(`note: placing again at ${shownPrice(shown, current)} with a new Idempotency-Key ${idempotencyKey}`));
    }
  }
}

/** The person sees the price the gift costs now and places the order at it, or the order ends (exit 1). */
async function acceptNewPrice(ctx: Context, body: PlaceOrderRequest, current: string, shown: Shown | undefined): Promise<void> {
  ctx.io.info(terminalSafeLine(`The price changed: the order was sent at ${shownPrice(shown, body.coinPrice)}, the gift now costs ${shownPrice(shown, current)}. Nothing was ordered.`));
  if (!(await ctx.prompter().confirm(`Place the order again at ${shownPrice(shown, current)}?`, false))) {
    throw new FailureError(`order not placed: the price changed to ${current} and you declined it`, 'price_changed');
  }
}

/** A coin price in the store's currency when the store was read, else as the API wrote it. */
function shownPrice(shown: Shown | undefined, coins: string): string {
  return shown ? formatPrice(coins, shown.store.currency) : coins;
}
