/**
 * Generic checks of command-line values (whole numbers, choices, lengths, NAME=VALUE pairs, ports),
 * run before any request. Each failure is a UsageError naming the flag or field, so the user fixes
 * the call without a round trip (exit 2). The checks of the API's own rules are in api/checks.ts.
 */
import { UsageError } from './errors.js';

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
