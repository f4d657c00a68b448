/**
 * The fields of each API object, for `--fields` (validation, the valid names in an error) and for
 * the default CSV columns, read from the API description: the build turns each answer schema of
 * `openapi/openapi.yaml` into a shape (`true` a leaf, a scalar or an array shown whole; an object
 * its own fields). An event's `data` is the link or the order as the event left it, so either's
 * fields are valid there.
 */
import { FIELD_SHAPES } from './generated/constants.js';

export type Shape = { readonly [field: string]: true | Shape };

export const RESOURCE_FIELDS = {
  campaign: FIELD_SHAPES.Campaign,
  link: FIELD_SHAPES.PersonalLink,
  order: FIELD_SHAPES.RewardStoreOrder,
  store: FIELD_SHAPES.RewardStoreSummary,
  storeDetail: FIELD_SHAPES.RewardStore,
  me: FIELD_SHAPES.Me,
  event: FIELD_SHAPES.Event,
} as const satisfies Record<string, Shape>;
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
