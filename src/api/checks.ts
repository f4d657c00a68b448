/**
 * Client-side checks of the API's rules (ids, page sizes, country codes, language tags, e-mail,
 * phone numbers, decimals), read from the description as generated constants and run before any
 * request. Each failure is a UsageError naming the flag or field (exit 2). The generic checks of
 * core/validate.ts are re-exported, so a command validates everything through this one module.
 */
import { UsageError } from '../core/errors.js';
import { maxLength } from '../core/validate.js';
import { API_LIMITS, API_PATTERNS, COUNTRY_CODES, type CountryCode } from './types.js';

export * from '../core/validate.js';

// The API's formats and limits come from its description (openapi/openapi.yaml), as generated constants.
const UUID = new RegExp(API_PATTERNS.uuid, 'u');
const E164 = new RegExp(API_PATTERNS.phoneE164, 'u');
// Pragmatic address check: one @, no spaces, a dot in the domain. The server stays the authority.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const COUNTRIES: ReadonlySet<string> = new Set(COUNTRY_CODES);
const LOCALE = new RegExp(API_PATTERNS.locale, 'u');
const DECIMAL = new RegExp(API_PATTERNS.decimal, 'u');

export function uuid(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`${name}: required`);
  if (!UUID.test(value)) throw new UsageError(`${name}: not a valid id (expected a UUID): ${value}`);
  return value;
}

export function optionalUuid(value: string | undefined, name: string): string | undefined {
  return value === undefined ? undefined : uuid(value, name);
}

export function limit(value: string | undefined, name = '--limit'): number | undefined {
  if (value === undefined) return undefined;
  const { pageSizeMin: min, pageSizeMax: max } = API_LIMITS;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${name}: must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return Number(value);
}

export function country(value: string, name?: string): CountryCode;
export function country(value: string | undefined, name?: string): CountryCode | undefined;
export function country(value: string | undefined, name = '--country'): CountryCode | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (!COUNTRIES.has(upper)) throw new UsageError(`${name}: must be a two-letter ISO 3166-1 country code, got ${value}`);
  return upper as CountryCode;
}

export function locale(value: string | undefined, name = '--locale'): string | undefined {
  if (value === undefined) return undefined;
  if (!LOCALE.test(value)) throw new UsageError(`${name}: not a language tag such as en-US or de-DE: ${value}`);
  return value;
}

export function email(value: string | undefined, name = '--email'): string | undefined {
  if (value === undefined) return undefined;
  if (!EMAIL.test(value)) throw new UsageError(`${name}: not an e-mail address: ${value}`);
  return maxLength(value, API_LIMITS.linkEmail, name);
}

export function e164(value: string | undefined, name = '--phone'): string | undefined {
  if (value === undefined) return undefined;
  if (!E164.test(value)) throw new UsageError(`${name}: must be an E.164 number such as +4915112345678, got ${value}`);
  return value;
}

export function decimal(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!DECIMAL.test(value)) throw new UsageError(`${name}: must be a decimal number such as 1200 or 12.50, got ${value}`);
  return value;
}
