import { ApiProblem, invalidField, notFound } from '../errors.js';
import { ORDER_STATUSES, type OrderStatus, orderJson, translate } from '../models.js';
import { encodeTimeCursor, pageNewestFirst, readLimit, readTimeCursor } from '../paging.js';
import type { ApiRoute } from '../router.js';
import { bodyObject, ok, pathId, queryValue } from '../router.js';
import { sameVariations } from '../store.js';
import { FieldErrors, isDecimal, isPlainObject, readCustomFieldAnswers, sameDecimal, usesPostalCodes } from '../validate.js';
import { giftPrice, storeCurrency } from './stores.js';

function readVariations(value: unknown, errors: FieldErrors): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    errors.add('variations', 'invalid', 'variations must map each dimension name to one value (strings).');
    return {};
  }
  return value as Record<string, string>;
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

      let country: string | undefined;
      if (body.recipient === undefined || body.recipient === null) {
        errors.add('recipient', 'required', 'recipient is required.');
      } else if (!isPlainObject(body.recipient)) {
        errors.add('recipient', 'invalid', 'recipient must be an object.');
      } else {
        const recipient = body.recipient;
        errors.requiredString(recipient.name, 'recipient.name', 100);
        errors.optionalEmail(recipient.email, 'recipient.email');
        errors.requiredPhone(recipient.phone, 'recipient.phone');
        const address = recipient.address;
        if (address === undefined || address === null) {
          errors.add('recipient.address', 'required', 'recipient.address is required.');
        } else if (!isPlainObject(address)) {
          errors.add('recipient.address', 'invalid', 'recipient.address must be an object.');
        } else {
          errors.requiredString(address.street, 'recipient.address.street', 255);
          errors.requiredString(address.city, 'recipient.address.city', 100);
          country = errors.requiredCountry(address.country, 'recipient.address.country');
          const errorsBefore = errors.list.length;
          const postalCode = errors.optionalString(address.postalCode, 'recipient.address.postalCode', 20);
          const postalCodeMalformed = errors.list.length > errorsBefore;
          if (!postalCodeMalformed && country !== undefined && usesPostalCodes(country) && (postalCode ?? '').trim() === '') {
            errors.add('recipient.address.postalCode', 'required', `A postal code is required for deliveries to ${country}.`);
          }
        }
      }
      errors.throwIfAny();
      const deliveryCountry = country as string;

      const store = state.store(storeId as string);
      if (store === undefined || !store.brandIds.some((b) => key.brandIds.includes(b))) {
        throw new ApiProblem(422, 'reward_store_not_found', `Reward store ${storeId} does not exist or is not usable with this key.`);
      }
      if (!store.brandIds.includes(brandId as string) || !key.brandIds.includes(brandId as string)) {
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
      const combination = gift.combinations.find((c) => sameVariations(c.variations, variations));
      if (gift.dimensions.length === 0 ? Object.keys(variations).length > 0 : combination === undefined) {
        // Left out for a gift with options is "missing"; anything else that names no combination is "invalid".
        const missing = gift.dimensions.length > 0 && (body.variations === undefined || body.variations === null);
        const detail = 'variations is not one of the gift\'s combinations.';
        throw missing
          ? invalidField('variations', 'required', 'variations is required: the gift has options; name one of its combinations.', detail)
          : invalidField('variations', 'invalid', 'variations must name one of the gift\'s combinations ({} for a gift without options).', detail);
      }
      if (combination !== undefined && combination.stock <= 0) {
        throw new ApiProblem(409, 'out_of_stock', 'The chosen combination is sold out.');
      }
      const currentPrice = giftPrice(gift, deliveryCountry);
      if (!sameDecimal(currentPrice, coinPrice as string)) {
        throw new ApiProblem(409, 'price_changed', `The price is now ${currentPrice}; show it to the player before ordering again.`, { coinPrice: currentPrice });
      }
      const recipient = body.recipient as Record<string, unknown>;
      const address = recipient.address as Record<string, unknown>;
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
          recipient: {
            name: recipient.name as string,
            email: (recipient.email as string | undefined) ?? null,
            phone: recipient.phone as string,
            address: {
              street: address.street as string,
              city: address.city as string,
              postalCode: (address.postalCode as string | undefined) ?? null,
              country: deliveryCountry,
            },
          },
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
      const status = query.get('status');
      if (status !== null && !ORDER_STATUSES.includes(status as OrderStatus)) {
        errors.add('status', 'invalid', `status must be one of ${ORDER_STATUSES.join(', ')}.`);
      }
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
          (status === null || o.status === status),
      );
      return ok({
        items: page.items.map(orderJson),
        nextCursor: page.continueAfter === null ? null : encodeTimeCursor('orders', { t: page.continueAfter.createdAt, id: page.continueAfter.id }),
      });
    },
  },
  {
    method: 'GET',
    path: '/reward-store-orders/{orderId}',
    scope: 'REWARD_STORES',
    idempotency: 'none',
    handle: (ctx) => {
      const order = ctx.state.order(pathId(ctx, 'orderId', 'The order'));
      if (order === undefined || order.placedBy !== ctx.key.name || !ctx.key.brandIds.includes(order.brandId)) throw notFound('The order');
      return ok(orderJson(order));
    },
  },
];
