/** One line, in words, for each way the API refuses an order, with what to do about it. */
import type { PlaceOrderRequest } from '../../api/types.js';
import { ApiError } from '../../core/errors.js';
import { apiErrorCode } from '../../api/error-codes.js';

/** `reason` of gift_not_available, as the spec defines it. */
const GIFT_NOT_AVAILABLE: Record<string, string> = {
  NOT_IN_STORE: 'the store does not hold this gift',
  NOT_PUBLISHED: 'the gift was withdrawn from the catalog',
  NOT_USABLE_BY_BRAND: 'the gift is not offered for this brand',
  NOT_SOLD_IN_COUNTRY: 'the gift is not sold in the delivery country',
  NOT_AVAILABLE_NOW: 'the gift cannot be ordered right now; try again later',
  NO_SELECTABLE_COMBINATION: 'none of the gift\'s options can be ordered now',
};

/** Where the request came from, so a hint names what to change: a flag, or the file. */
export type OrderSource = 'flags' | 'file';

export function explainOrderRefusal(error: ApiError, body: PlaceOrderRequest, source: OrderSource = 'flags'): ApiError {
  const storeHint = `see what can be ordered: svc stores show ${body.storeId} --brand ${body.brandId} --country ${body.recipient.address.country}`;
  switch (apiErrorCode(error)) {
    case 'price_changed':
      return error.explained(`the price changed: the order was sent at ${body.coinPrice}, the gift now costs ${error.problem.coinPrice ?? 'a different price'}; nothing was ordered`,
        error.problem.coinPrice
          ? `confirm the new price with the player, then run again with ${source === 'file' ? `"coinPrice": "${error.problem.coinPrice}" in the file` : `--price ${error.problem.coinPrice}`}`
          : storeHint,
      );
    case 'out_of_stock':
      return error.explained(`sold out: ${describeVariations(body.variations)} cannot be ordered now; nothing was ordered`, storeHint);
    case 'gift_not_available': {
      const why = GIFT_NOT_AVAILABLE[String(error.problem.reason)] ?? `reason ${error.problem.reason ?? 'not given'}`;
      return error.explained(`the gift cannot be ordered: ${why}`, storeHint);
    }
    case 'reward_store_not_live':
      return error.explained('the store is not taking orders: it has not opened yet or it has ended', 'list stores and their phase: svc stores ls');
    case 'reward_store_not_found':
      return error.explained('this key cannot use that store', 'list the stores this key can use: svc stores ls');
    case 'brand_not_found':
      return error.explained('the brand is not one of the store\'s brands, or this key cannot use it', 'the store\'s brands are listed by: svc stores ls');
    case 'idempotency_key_reused':
      return error.explained(error.message, 'this --idempotency-key was used for a different order; use a new key');
    case 'invalid_request':
      return error.fieldErrors.some((entry) => entry.field === 'recipient.address.postalCode' && entry.code === 'required')
        ? error.explained(error.message, `${body.recipient.address.country} uses postal codes: ${source === 'file' ? 'add recipient.address.postalCode to the file' : 'pass --postal-code'}`)
        : error;
    default:
      return error;
  }
}

export function describeVariations(variations: Record<string, string>): string {
  const pairs = Object.entries(variations).map(([name, value]) => `${name}=${value}`);
  return pairs.length ? pairs.join(', ') : 'this gift';
}
