import { ApiProblem, invalidField } from '../errors.js';
import { LIMITS } from '../../api/generated/constants.js';
import type { components } from '../../api/generated/types.js';
import { type Gift, type GiftCombination, type OrderStatus, type Recipient, giftPrice, orderJson, storeCurrency, translate, usableBrandIds } from '../models.js';
import { pageNewestFirst } from '../paging.js';
import type { ApiRoute } from '../router.js';
import { bodyObject, ok, pathRecord } from '../router.js';
import { sameVariations } from '../store.js';
import { FieldErrors, checkBody, checkQuery, isPlainObject, readCustomFieldAnswers, sameDecimal, usesPostalCodes } from '../validate.js';

type CountryCode = components['schemas']['CountryCode'];

/**
 * The order's recipient from a body the schema has checked. The postal code is the spec's prose rule
 * ("required where the country uses postal codes"), so it is checked here. Undefined when the schema
 * refused a part of it.
 */
function readRecipient(value: unknown, errors: FieldErrors): Recipient | undefined {
  if (!isPlainObject(value) || !isPlainObject(value.address) || errors.has('recipient') || errors.has('recipient.address')) return undefined;
  const address = value.address;
  const country = errors.has('recipient.address.country') ? undefined : (address.country as CountryCode);
  const postalCode = address.postalCode as string | undefined;
  if ((postalCode === undefined || postalCode.trim() === '') && !errors.has('recipient.address.postalCode') && country !== undefined && usesPostalCodes(country)) {
    errors.add('recipient.address.postalCode', 'required', `A postal code is required for deliveries to ${country}.`);
  }
  if (errors.list.length > 0 || country === undefined) return undefined;
  return {
    name: value.name as string,
    email: (value.email as string | undefined) ?? null,
    phone: value.phone as string,
    address: { street: address.street as string, city: address.city as string, postalCode: postalCode ?? null, country },
  };
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
      const errors = new FieldErrors();
      const body = checkBody('placeRewardStoreOrder', bodyObject(rawBody), errors);
      const locale = errors.enabledLocale(body.locale, 'locale', state.tenant.locales);
      const customFields = readCustomFieldAnswers(body.customFields, state.tenant.customFields, errors);
      const recipient = readRecipient(body.recipient, errors);
      errors.throwIfAny();
      // No errors: the schema checked every member, and every required one is present.
      const storeId = (body.storeId as string).toLowerCase();
      const brandId = (body.brandId as string).toLowerCase();
      const productId = (body.productId as string).toLowerCase();
      const variations = (body.variations as Record<string, string> | undefined) ?? {};
      const coinPrice = body.coinPrice as string;
      const additionalDetails = body.additionalDetails as string | undefined;
      const deliveryCountry = (recipient as Recipient).address.country as CountryCode;

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
      const params = checkQuery('listRewardStoreOrders', query, errors);
      const brandId = (params.brandId as string | undefined)?.toLowerCase();
      const storeId = (params.storeId as string | undefined)?.toLowerCase();
      const status = params.status as OrderStatus | undefined;
      const limit = (params.limit as number | undefined) ?? LIMITS.pageSizeDefault;
      const after = state.cursors.readTime(query, errors, 'orders');
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
        nextCursor: state.cursors.nextTime('orders', page),
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
