import { ApiProblem, invalidField } from '../errors.js';
import { type Gift, type GiftCombination, ORDER_STATUSES, type Recipient, giftPrice, orderJson, storeCurrency, translate, usableBrandIds } from '../models.js';
import { nextTimeCursor, pageNewestFirst, readLimit, readTimeCursor } from '../paging.js';
import type { ApiRoute } from '../router.js';
import { bodyObject, ok, pathRecord, queryValue } from '../router.js';
import { sameVariations } from '../store.js';
import { FieldErrors, isDecimal, isPlainObject, readCustomFieldAnswers, sameDecimal, usesPostalCodes } from '../validate.js';

function readVariations(value: unknown, errors: FieldErrors): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    errors.add('variations', 'invalid', 'variations must map each dimension name to one value (strings).');
    return {};
  }
  return value as Record<string, string>;
}

/** A member that must be a JSON object; undefined (with the problem in `errors`) otherwise. */
function requiredObject(value: unknown, field: string, errors: FieldErrors): Record<string, unknown> | undefined {
  if (value === undefined || value === null) {
    errors.add(field, 'required', `${field} is required.`);
    return undefined;
  }
  if (!isPlainObject(value)) {
    errors.add(field, 'invalid', `${field} must be an object.`);
    return undefined;
  }
  return value;
}

/** The order's recipient, or undefined when `errors` got a problem with it. */
function readRecipient(body: unknown, errors: FieldErrors): Recipient | undefined {
  const value = requiredObject(body, 'recipient', errors);
  if (value === undefined) return undefined;
  const name = errors.requiredString(value.name, 'recipient.name', 100);
  const email = errors.optionalEmail(value.email, 'recipient.email');
  const phone = errors.requiredPhone(value.phone, 'recipient.phone');
  const address = readAddress(value.address, errors);
  if (name === undefined || phone === undefined || address === undefined) return undefined;
  return { name, email: email ?? null, phone, address };
}

function readAddress(body: unknown, errors: FieldErrors): Recipient['address'] | undefined {
  const value = requiredObject(body, 'recipient.address', errors);
  if (value === undefined) return undefined;
  const street = errors.requiredString(value.street, 'recipient.address.street', 255);
  const city = errors.requiredString(value.city, 'recipient.address.city', 100);
  const country = errors.requiredCountry(value.country, 'recipient.address.country');
  const postalCode = errors.optionalString(value.postalCode, 'recipient.address.postalCode', 20);
  // Absent or blank; a malformed postal code has its own error already.
  const postalCodeMissing = value.postalCode === undefined || value.postalCode === null || postalCode?.trim() === '';
  if (postalCodeMissing && country !== undefined && usesPostalCodes(country)) {
    errors.add('recipient.address.postalCode', 'required', `A postal code is required for deliveries to ${country}.`);
  }
  if (street === undefined || city === undefined || country === undefined) return undefined;
  return { street, city, postalCode: postalCode ?? null, country };
}

/**
 * The combination the variations name: none for a gift without options (which must get `{}`), else
 * one of the gift's. Left out for a gift with options is "required"; anything else that names no
 * combination is "invalid".
 */
function chooseCombination(gift: Gift, variations: Record<string, string>, leftOut: boolean): GiftCombination | undefined {
  const combination = gift.combinations.find((c) => sameVariations(c.variations, variations));
  const hasOptions = gift.dimensions.length > 0;
  if (hasOptions ? combination !== undefined : Object.keys(variations).length === 0) return combination;
  const detail = 'variations is not one of the gift\'s combinations.';
  throw hasOptions && leftOut
    ? invalidField('variations', 'required', 'variations is required: the gift has options; name one of its combinations.', detail)
    : invalidField('variations', 'invalid', 'variations must name one of the gift\'s combinations ({} for a gift without options).', detail);
}

export const orderRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/reward-store-orders',
    scope: 'REWARD_STORES',
    idempotency: 'required',
    handle: ({ state, key, body: rawBody }) => {
      const body = bodyObject(rawBody);
      const errors = new FieldErrors();
      const storeId = errors.requiredUuid(body.storeId, 'storeId');
      const brandId = errors.requiredUuid(body.brandId, 'brandId');
      const productId = errors.requiredUuid(body.productId, 'productId');
      const variations = readVariations(body.variations, errors);
      const coinPrice = errors.requiredString(body.coinPrice, 'coinPrice');
      if (coinPrice !== undefined && !isDecimal(coinPrice)) errors.add('coinPrice', 'invalid', 'coinPrice must be a decimal string such as "1200".');
      const locale = errors.optionalLocale(body.locale, 'locale', state.tenant.locales);
      const additionalDetails = errors.optionalString(body.additionalDetails, 'additionalDetails', 2000);
      const customFields = readCustomFieldAnswers(body.customFields, state.tenant.customFields, errors);

      const recipient = readRecipient(body.recipient, errors);
      errors.throwIfAny();
      // No errors: every required value above is present.
      const deliveryCountry = (recipient as Recipient).address.country;

      const store = state.store(storeId as string);
      const usableBrands = store === undefined ? [] : usableBrandIds(key, store.brandIds);
      if (store === undefined || usableBrands.length === 0) {
        throw new ApiProblem(422, 'reward_store_not_found', `Reward store ${storeId} does not exist or is not usable with this key.`);
      }
      if (!usableBrands.includes(brandId as string)) {
        throw new ApiProblem(422, 'brand_not_found', `Brand ${brandId} is not one of the store's brands usable with this key.`);
      }
      const phase = state.storePhase(store);
      if (phase !== 'LIVE') {
        throw new ApiProblem(422, 'reward_store_not_live', `The reward store is ${phase === 'SCHEDULED' ? 'not open yet' : 'ended'} and takes no orders.`);
      }
      const gift = state.findGift(store, productId as string);
      const unavailable = gift === undefined ? 'NOT_IN_STORE' : state.giftUnavailableReason(gift, brandId as string, deliveryCountry);
      if (gift === undefined || unavailable !== null) {
        throw new ApiProblem(422, 'gift_not_available', `The gift cannot be ordered for this brand and country (${unavailable}).`, {
          reason: unavailable ?? 'NOT_IN_STORE',
        });
      }
      const combination = chooseCombination(gift, variations, body.variations === undefined || body.variations === null);
      if (combination !== undefined && combination.stock <= 0) {
        throw new ApiProblem(409, 'out_of_stock', 'The chosen combination is sold out.');
      }
      const currentPrice = giftPrice(gift, deliveryCountry);
      if (!sameDecimal(currentPrice, coinPrice as string)) {
        throw new ApiProblem(409, 'price_changed', `The price is now ${currentPrice}; show it to the player before ordering again.`, { coinPrice: currentPrice });
      }
      const order = state.placeOrder(
        {
          storeId: store.id,
          brandId: brandId as string,
          productId: gift.productId,
          productName: translate(gift.name, locale),
          variations: combination?.variations ?? {},
          coinPrice: currentPrice,
          currency: storeCurrency(store, locale),
          deliveryCountry,
          customFields,
          placedBy: key.name,
          locale,
          recipient: recipient as Recipient,
          additionalDetails: additionalDetails ?? null,
        },
        gift,
      );
      return ok(orderJson(order), 201);
    },
  },
  {
    method: 'GET',
    path: '/reward-store-orders',
    scope: 'REWARD_STORES',
    idempotency: 'none',
    handle: ({ state, key, query }) => {
      const errors = new FieldErrors();
      const brandId = errors.optionalUuid(queryValue(query, 'brandId'), 'brandId');
      const storeId = errors.optionalUuid(queryValue(query, 'storeId'), 'storeId');
      const status = errors.optionalOneOf(queryValue(query, 'status'), 'status', ORDER_STATUSES);
      const limit = readLimit(query, errors);
      const after = readTimeCursor(query, errors, 'orders');
      errors.throwIfAny();

      const page = pageNewestFirst(
        state.ordersOf(key.name),
        after,
        limit,
        (o) =>
          key.brandIds.includes(o.brandId) &&
          (brandId === undefined || o.brandId === brandId) &&
          (storeId === undefined || o.storeId === storeId) &&
          (status === undefined || o.status === status),
      );
      return ok({
        items: page.items.map(orderJson),
        nextCursor: nextTimeCursor('orders', page),
      });
    },
  },
  {
    method: 'GET',
    path: '/reward-store-orders/{orderId}',
    scope: 'REWARD_STORES',
    idempotency: 'none',
    handle: (ctx) => {
      // Only the placing key sees an order, and only while it may still act for the order's brand.
      const order = pathRecord(ctx, 'orderId', 'The order', (id) => {
        const found = ctx.state.order(id);
        return found !== undefined && found.placedBy === ctx.key.name && ctx.key.brandIds.includes(found.brandId) ? found : undefined;
      });
      return ok(orderJson(order));
    },
  },
];
