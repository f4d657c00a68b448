/**
 * Client-side checks of the spec's rules, run before any request. Each failure is a UsageError
 * naming the flag or field, so the user fixes the call without a round trip (exit 2).
 */
import { API_LIMITS, API_PATTERNS, COUNTRY_CODES } from '../api/types.js';
import { UsageError } from './errors.js';

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

export function positiveInt(value: string | undefined, name: string, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`${name}: must be a whole number ≥ ${min}, got ${value}`);
  return Number(value);
}

export function positiveNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) throw new UsageError(`${name}: must be a positive number, got ${value}`);
  return number;
}

export function country(value: string | undefined, name = '--country'): string | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (!COUNTRIES.has(upper)) throw new UsageError(`${name}: must be a two-letter ISO 3166-1 country code, got ${value}`);
  return upper;
}

export function locale(value: string | undefined, name = '--locale'): string | undefined {
  if (value === undefined) return undefined;
  if (!LOCALE.test(value)) throw new UsageError(`${name}: not a language tag such as en-US or de-DE: ${value}`);
  return value;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (!(allowed as readonly string[]).includes(upper)) {
    throw new UsageError(`${name}: must be one of ${allowed.join(', ')}, got ${value}`);
  }
  return upper as T;
}

export function maxLength(value: string | undefined, max: number, name: string): string | undefined {
  if (value !== undefined && [...value].length > max) {
    throw new UsageError(`${name}: too long (${[...value].length} characters, at most ${max})`);
  }
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

/** `NAME=VALUE` pairs of repeatable flags (`--variation size=M`, `--field Team=Blue`). */
export function pairs(values: readonly string[] | undefined, name: string): [string, string][] {
  return (values ?? []).map((entry) => {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`${name}: expected NAME=VALUE, got ${entry}`);
    return [entry.slice(0, at), entry.slice(at + 1)];
  });
}

/** A TCP port for a server svc runs (0 picks a free one). */
export function port(value: string | undefined, fallback: number, name = '--port'): number {
  const chosen = positiveInt(value, name, 0) ?? fallback;
  if (chosen > 65_535) throw new UsageError(`${name}: must be 0 to 65535, got ${chosen}`);
  return chosen;
}

/** Whole seconds, as --now, --timestamp and --tolerance take them. */
export function wholeSeconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${name}: must be whole seconds (digits only), got ${JSON.stringify(value)}`);
  return Number(value.trim());
}
