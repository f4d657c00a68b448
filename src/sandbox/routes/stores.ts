import { formatNullableTimestamp } from '../clock.js';
import { notFound } from '../errors.js';
import { type Gift, giftPrice, listedForKey, storeCurrency, translate, usableBrandIds } from '../models.js';
import { LIMITS } from '../../api/generated/constants.js';
import { pageByName } from '../paging.js';
import type { ApiRoute } from '../router.js';
import { ok, pathId } from '../router.js';
import { FieldErrors, checkQuery } from '../validate.js';

const IMAGE_WIDTHS = [320, 640, 1280];

/** Image addresses point at this sandbox's /images, which opens without a key. */
function imageJson(origin: string, name: string): Record<string, unknown> {
  const variants = IMAGE_WIDTHS.map((width) => ({ url: `${origin}/images/${name}-${width}.png`, width }));
  return { url: variants[variants.length - 1].url, variants };
}

function giftJson(gift: Gift, country: string, locale: string, origin: string): Record<string, unknown> {
  return {
    productId: gift.productId,
    name: translate(gift.name, locale),
    description: gift.description === null ? null : translate(gift.description, locale),
    thumbnail: gift.images.length === 0 ? null : imageJson(origin, gift.images[0]),
    gallery: gift.images.slice(1).map((name) => imageJson(origin, name)),
    dimensions: gift.dimensions.map((d) => ({
      name: d.name,
      label: translate(d.label, locale),
      values: d.values.map((v) => ({ value: v.value, label: translate(v.label, locale) })),
    })),
    // Sold-out combinations are left out: only what can be ordered now is offered.
    combinations: gift.combinations.filter((c) => c.stock > 0).map((c) => ({ variations: c.variations })),
    coinPrice: giftPrice(gift, country),
  };
}

export const storeRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/reward-stores',
    scope: 'REWARD_STORES',
    idempotency: 'none',
    handle: ({ state, key, query }) => {
      const errors = new FieldErrors();
      const params = checkQuery('listRewardStores', query, errors);
      const brandId = (params.brandId as string | undefined)?.toLowerCase();
      const limit = (params.limit as number | undefined) ?? LIMITS.pageSizeDefault;
      const after = state.cursors.readName(query, errors, 'stores');
      errors.throwIfAny();

      const now = state.clock.now();
      const listed = state.stores.filter(
        (s) =>
          state.storePhase(s, now) !== 'ENDED' &&
          listedForKey(key, s.brandIds, brandId),
      );
      const page = pageByName(listed, after, limit);
      return ok({
        items: page.items.map((s) => ({
          id: s.id,
          name: s.name,
          brandIds: usableBrandIds(key, s.brandIds),
          phase: state.storePhase(s, now),
          startsAt: formatNullableTimestamp(s.startsAt),
          endsAt: formatNullableTimestamp(s.endsAt),
        })),
        nextCursor: state.cursors.nextName('stores', page),
      });
    },
  },
  {
    method: 'GET',
    path: '/reward-stores/{storeId}',
    scope: 'REWARD_STORES',
    idempotency: 'none',
    handle: (ctx) => {
      const { state, key, query, origin } = ctx;
      const storeId = pathId(ctx, 'storeId', 'The reward store');
      const errors = new FieldErrors();
      const params = checkQuery('getRewardStore', query, errors);
      const locale = errors.enabledLocale(params.locale, 'locale', state.tenant.locales);
      errors.throwIfAny();
      const brandId = (params.brandId as string).toLowerCase();
      const country = params.country as string;

      const now = state.clock.now();
      const store = state.store(storeId);
      const phase = store === undefined ? 'ENDED' : state.storePhase(store, now);
      if (store === undefined || phase === 'ENDED' || !usableBrandIds(key, store.brandIds).includes(brandId as string)) {
        throw notFound('The reward store');
      }
      const brand = state.brand(brandId as string);
      const sections = store.sections
        .map((section) => ({
          id: section.id,
          name: translate(section.name, locale),
          items: section.gifts
            .filter((gift) => state.giftUnavailableReason(gift, brandId as string, country as string, now) === null)
            .map((gift) => giftJson(gift, country as string, locale, origin)),
        }))
        .filter((section) => section.items.length > 0);
      return ok({
        id: store.id,
        name: store.name,
        description: store.description,
        phase,
        startsAt: formatNullableTimestamp(store.startsAt),
        endsAt: formatNullableTimestamp(store.endsAt),
        banner: store.banner === null ? null : imageJson(origin, store.banner),
        brand: { id: brand?.id, name: brand?.name },
        currency: storeCurrency(store, locale),
        country,
        locale,
        sections,
      });
    },
  },
];
