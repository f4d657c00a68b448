/**
 * The fields of each API object, for `--fields` (validation, the valid names in an error) and for
 * the default CSV columns. STAND-IN: until the generated schemas of the API description land, this
 * map is the one place these names are written; each shape is checked against `types.ts` by the
 * compiler (`satisfies`), so a field added there and not here fails the build. Swap `RESOURCE_FIELDS`
 * for the description's schemas when they exist; callers only use `fieldPaths` and `defaultColumns`.
 *
 * `true` is a leaf (a scalar, or an array shown whole); an object lists its own fields.
 */
import type { Campaign, Me, PersonalLink, RewardStore, RewardStoreOrder, RewardStoreSummary, SvcEvent } from './types.js';

export type Shape = { readonly [field: string]: true | Shape };
type ShapeOf<T> = { readonly [K in keyof Required<T>]: true | Shape };

const CURRENCY = { name: true, symbol: true } as const;
const BRAND = { id: true, name: true } as const;

const campaign = { id: true, name: true, status: true, brandIds: true, expiresAt: true } as const satisfies ShapeOf<Campaign>;

const link = {
  id: true,
  campaignId: true,
  selection: true,
  brandId: true,
  status: true,
  claimUrl: true,
  customFields: true,
  expiresAt: true,
  createdAt: true,
  approvedAt: true,
  claimedAt: true,
  cancelledAt: true,
  updatedAt: true,
} as const satisfies ShapeOf<PersonalLink>;

const order = {
  id: true,
  reference: true,
  storeId: true,
  brandId: true,
  productId: true,
  productName: true,
  variations: true,
  status: true,
  coinPrice: true,
  currency: CURRENCY,
  deliveryCountry: true,
  customFields: true,
  shipment: { carrier: true, trackingReference: true, trackingUrl: true },
  createdAt: true,
  updatedAt: true,
} as const satisfies ShapeOf<RewardStoreOrder>;

const store = { id: true, name: true, brandIds: true, phase: true, startsAt: true, endsAt: true } as const satisfies ShapeOf<RewardStoreSummary>;

const storeDetail = {
  id: true,
  name: true,
  description: true,
  phase: true,
  startsAt: true,
  endsAt: true,
  banner: true,
  brand: BRAND,
  currency: CURRENCY,
  country: true,
  locale: true,
  sections: true,
} as const satisfies ShapeOf<RewardStore>;

const me = {
  tenant: { id: true, locales: true, approvalRequired: true, customFields: true },
  key: { name: true, scopes: true, webhookUrl: true },
  brands: true,
  environment: true,
} as const satisfies ShapeOf<Me>;

/** An event's `data` is the link or the order as the event left it: either's fields are valid. */
const event = { id: true, type: true, occurredAt: true, environment: true, data: { ...link, ...order } } as const satisfies ShapeOf<SvcEvent>;

export const RESOURCE_FIELDS = { campaign, link, order, store, storeDetail, me, event } as const;
export type Resource = keyof typeof RESOURCE_FIELDS;

/** How a resource is named in messages ("valid fields of a store read: …"). */
export const RESOURCE_LABEL: Readonly<Record<Resource, string>> = {
  campaign: 'a campaign',
  link: 'a link',
  order: 'an order',
  store: 'a store',
  storeDetail: 'a store read',
  me: 'me',
  event: 'an event',
};

/** The list endpoints and the object each returns, for the default CSV columns of a list. */
export const RESOURCE_OF_PATH: Readonly<Record<string, Resource>> = {
  '/campaigns': 'campaign',
  '/personal-links': 'link',
  '/reward-stores': 'store',
  '/reward-store-orders': 'order',
  '/events': 'event',
};

/** Every valid dotted path of a resource: each field, and each field of a nested object. */
export function fieldPaths(resource: Resource): string[] {
  return paths(RESOURCE_FIELDS[resource], false);
}

/** The columns of a CSV without --fields: every leaf, nested objects spelled out (`currency.name`). */
export function defaultColumns(resource: Resource): string[] {
  return paths(RESOURCE_FIELDS[resource], true);
}

function paths(shape: Shape, leavesOnly: boolean, prefix = ''): string[] {
  return Object.entries(shape).flatMap(([name, child]) => {
    const path = `${prefix}${name}`;
    if (child === true) return [path];
    return leavesOnly ? paths(child, true, `${path}.`) : [path, ...paths(child, false, `${path}.`)];
  });
}
