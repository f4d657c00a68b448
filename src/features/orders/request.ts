/**
 * The order request of `orders place`: built from flags or read from a file, and checked against the
 * spec's rules before sending. One checker serves both, naming flags for flags and body paths for a
 * file. Recipient values live only in memory: never written to disk, a log or stdout.
 */
import type { CustomFieldInput, PlaceOrderRequest } from '../../api/types.js';
import { UsageError } from '../../core/errors.js';
import * as validate from '../../core/validate.js';
import { LIMITS, RequestChecks, withoutUndefined } from '../fields.js';

/** An order under construction: the request's shape with every member possibly missing. */
export interface Draft {
  storeId?: string;
  brandId?: string;
  productId?: string;
  variations?: Record<string, string>;
  coinPrice?: string;
  locale?: string;
  recipient: { name?: string; email?: string; phone?: string; address: { street?: string; city?: string; postalCode?: string; country?: string } };
  additionalDetails?: string;
  customFields?: CustomFieldInput[];
}

/** The flag behind each body path, so checks of flag values name the flag. */
const ORDER_FLAGS: Record<string, string> = {
  storeId: '--store',
  brandId: '--brand',
  productId: '--product',
  variations: '--variation',
  coinPrice: '--price',
  locale: '--locale',
  'recipient.name': '--name',
  'recipient.email': '--email',
  'recipient.phone': '--phone',
  'recipient.address.street': '--street',
  'recipient.address.city': '--city',
  'recipient.address.postalCode': '--postal-code',
  'recipient.address.country': '--country',
  additionalDetails: '--details',
  customFields: '--field',
};

/** The flag behind a body path (the path itself where no flag sets it). */
export const flagName = (field: string): string => ORDER_FLAGS[field] ?? field;

/** `--variation NAME=VALUE`, each dimension once; none means a gift without options (`{}`). */
export function variationFlags(values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const pairs = validate.pairs(values, '--variation');
  const seen = new Set<string>();
  for (const [name] of pairs) {
    if (seen.has(name)) throw new UsageError(`--variation: ${name} given more than once`);
    seen.add(name);
  }
  // Defined, not assigned: a dimension named `__proto__` or `constructor` is only a key.
  return Object.fromEntries(pairs);
}

/**
 * Checks an order against the spec's rules. `complete` requires what the API requires (else only
 * given values are checked, for a guided flow still to ask the rest). Exit 2 listing every failure.
 */
export function checkOrder(input: Draft | Record<string, unknown>, name: (field: string) => string, complete: boolean, locales?: readonly string[]): Draft {
  const checks = new RequestChecks(name);
  const source = input as Record<string, unknown>;
  const recipient = member(source.recipient, 'recipient', checks);
  const address = member(recipient.address, 'recipient.address', checks);
  const draft: Draft = {
    storeId: checks.uuid(source.storeId, 'storeId', complete),
    brandId: checks.uuid(source.brandId, 'brandId', complete),
    productId: checks.uuid(source.productId, 'productId', complete),
    variations: checks.stringMap(source.variations, 'variations'),
    coinPrice: checks.decimal(source.coinPrice, 'coinPrice', complete),
    locale: checks.locale(source.locale, 'locale', locales),
    recipient: {
      name: checks.string(recipient.name, 'recipient.name', complete, LIMITS.recipientName),
      email: checks.email(recipient.email, 'recipient.email'),
      phone: checks.phone(recipient.phone, 'recipient.phone', complete),
      address: {
        street: checks.string(address.street, 'recipient.address.street', complete, LIMITS.street),
        city: checks.string(address.city, 'recipient.address.city', complete, LIMITS.city),
        postalCode: checks.text(address.postalCode, 'recipient.address.postalCode', LIMITS.postalCode),
        country: checks.country(address.country, 'recipient.address.country', complete),
      },
    },
    additionalDetails: checks.text(source.additionalDetails, 'additionalDetails', LIMITS.additionalDetails),
    customFields: checks.answers(source.customFields, 'customFields'),
  };
  checks.throwIfAny();
  return draft;
}

function member(value: unknown, field: string, checks: RequestChecks): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  checks.add(field, 'invalid', `${field}: must be an object`);
  return {};
}

/** The body to send, once `checkOrder(…, complete)` passed: absent members dropped, `variations` at least `{}`. */
export function toRequest(draft: Draft): PlaceOrderRequest {
  const { recipient } = draft;
  return withoutUndefined({
    ...draft,
    variations: draft.variations ?? {},
    customFields: draft.customFields?.length ? draft.customFields : undefined,
    recipient: withoutUndefined({ ...recipient, address: withoutUndefined(recipient.address) }),
  }) as PlaceOrderRequest;
}

/** Reads the request body of `--from-file` (a path, or - for stdin). */
export function parseOrderFile(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--from-file: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--from-file: ${path} must hold one JSON object, the request body`);
  return value as Record<string, unknown>;
}
