/**
 * `--fields a,b,c.d`: which fields of each object are output, in this order. Dotted paths reach
 * into nested objects. In JSON a dotted path keeps the API's nesting (`currency.name` gives
 * `{"currency": {"name": …}}`), the shape `gh --json` users and jq expect; tables and CSV name the
 * column by the path. The valid paths come from the caller (the API description's fields).
 */
import { UsageError } from './errors.js';

/** Parses and checks a --fields value; unknown fields are a usage error naming the valid ones. */
export function parseFieldList(text: string, valid: readonly string[], what: string): string[] {
  const wanted = text.split(',').map((field) => field.trim()).filter((field) => field !== '');
  if (wanted.length === 0) throw new UsageError(`--fields: no field given; valid fields of ${what}: ${valid.join(', ')}`);
  const unknown = wanted.filter((field) => !valid.includes(field));
  if (unknown.length > 0) {
    throw new UsageError(`--fields: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; valid fields of ${what}: ${valid.join(', ')}`);
  }
  return wanted.filter((field, index) => wanted.indexOf(field) === index);
}

/** The value at a dotted path, or undefined when a step is missing or not an object. */
export function valueAt(item: unknown, path: string): unknown {
  let value = item;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** Only the chosen fields, nested as in the API; a missing field is null (the key is always there). */
export function project(item: unknown, paths: readonly string[]): Record<string, unknown> {
  // Objects without a prototype: a field named `__proto__` or `constructor` is only a key.
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const path of paths) {
    const steps = path.split('.');
    let target = result;
    for (const step of steps.slice(0, -1)) {
      const next = Object.hasOwn(target, step) ? target[step] : undefined;
      // A copy: a whole object chosen before (`currency`) is never the API's own object mutated.
      target = target[step] = Object.assign(Object.create(null) as Record<string, unknown>, next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {});
    }
    const value = valueAt(item, path);
    target[steps[steps.length - 1]] = value === undefined ? null : value;
  }
  return result;
}

/** A value as one cell's text: scalars as they are, objects and arrays as compact JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Every leaf path of an object as it came (nested objects spelled out; arrays are leaves). */
export function leafPaths(item: unknown, prefix = ''): string[] {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return [];
  return Object.entries(item).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0 ? leafPaths(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}
