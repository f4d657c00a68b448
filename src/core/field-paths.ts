/**
 * `--fields a,b,c.d`: which fields of each object are output, in this order. Dotted paths reach
 * into nested objects. In JSON a dotted path keeps the API's nesting (`currency.name` gives
 * `{"currency": {"name": …}}`), the shape `gh --json` users and jq expect; tables and CSV name the
 * column by the path. The valid paths come from the caller (the API description's fields).
 * `field:LABEL` (or `field:ID`) names one of the account's custom fields: parsed here, resolved to
 * `field:<id>` by `resolveCustomFields` once the account's fields are read, its column headed by
 * the field's label and its value the record's answer (text, or true/false for a checkbox).
 */
import { UsageError } from './errors.js';

/** The prefix of a custom field's path: `field:Player ID`, resolved to `field:<id>`. */
export const CUSTOM_FIELD = 'field:';

/** One of the account's custom fields, as far as columns need it. */
export interface FieldLabel {
  id: string;
  label: string;
}

/**
 * Parses and checks a --fields value; unknown fields are a usage error naming the valid ones.
 * `custom`: the records hold custom-field answers, so `field:LABEL` or `field:ID` may name one.
 */
export function parseFieldList(text: string, valid: readonly string[], what: string, custom = false): string[] {
  const wanted = text
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '')
    .map((field) => (field.startsWith(CUSTOM_FIELD) ? `${CUSTOM_FIELD}${field.slice(CUSTOM_FIELD.length).trim()}` : field));
  const names = custom ? [...valid, `${CUSTOM_FIELD}LABEL`] : valid;
  if (wanted.length === 0) throw new UsageError(`--fields: no field given; valid fields of ${what}: ${names.join(', ')}`);
  const unknown = wanted.filter((field) => !valid.includes(field) && !(custom && field.startsWith(CUSTOM_FIELD) && field.length > CUSTOM_FIELD.length));
  if (unknown.length > 0) {
    throw new UsageError(`--fields: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; valid fields of ${what}: ${names.join(', ')}`);
  }
  return wanted.filter((field, index) => wanted.indexOf(field) === index);
}

/**
 * `field:LABEL` and `field:ID` paths → `field:<id>` of the account's field (by id, else by label,
 * ignoring case); a name no field has is a usage error listing the account's labels.
 */
export function resolveCustomFields(paths: readonly string[], fields: readonly FieldLabel[]): string[] {
  const resolved = paths.map((path) => {
    if (!path.startsWith(CUSTOM_FIELD)) return path;
    const wanted = path.slice(CUSTOM_FIELD.length).toLowerCase();
    const field = fields.find((one) => one.id.toLowerCase() === wanted) ?? fields.find((one) => one.label.trim().toLowerCase() === wanted);
    if (!field) {
      const known = fields.map((one) => `"${one.label}"`).join(', ') || 'none';
      throw new UsageError(`--fields: no custom field with id or label "${path.slice(CUSTOM_FIELD.length)}" (the account's fields: ${known})`);
    }
    return `${CUSTOM_FIELD}${field.id}`;
  });
  return resolved.filter((path, index) => resolved.indexOf(path) === index);
}

/** A column's header: a custom field's label, any other path as it is. */
export function headerOf(path: string, fields: readonly FieldLabel[]): string {
  if (!path.startsWith(CUSTOM_FIELD)) return path;
  const id = path.slice(CUSTOM_FIELD.length).toLowerCase();
  return fields.find((field) => field.id.toLowerCase() === id)?.label ?? path;
}

/** The record's answer to a custom field by id: its text, or true/false for a checkbox; null when unanswered. */
function answerOf(item: unknown, id: string): unknown {
  const answers = valueAt(item, 'customFields');
  if (!Array.isArray(answers)) return undefined;
  const answer: unknown = answers.find((one: unknown) => typeof (one as { fieldId?: unknown })?.fieldId === 'string' && (one as { fieldId: string }).fieldId.toLowerCase() === id.toLowerCase());
  if (answer === undefined) return undefined;
  const { textValue, checked } = answer as { textValue?: unknown; checked?: unknown };
  return textValue ?? checked ?? null;
}

/** The value at a dotted path (a custom field's answer for `field:<id>`), or undefined when a step is missing or not an object. */
export function valueAt(item: unknown, path: string): unknown {
  if (path.startsWith(CUSTOM_FIELD)) return answerOf(item, path.slice(CUSTOM_FIELD.length));
  let value = item;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * Only the chosen fields, nested as in the API; a missing field is null (the key is always there).
 * A custom field's key is its label (`"Player ID": "12345"`).
 */
export function project(item: unknown, paths: readonly string[], fields: readonly FieldLabel[] = []): Record<string, unknown> {
  // Objects without a prototype: a field named `__proto__` or `constructor` is only a key.
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const path of paths) {
    if (path.startsWith(CUSTOM_FIELD)) {
      result[headerOf(path, fields)] = valueAt(item, path) ?? null;
      continue;
    }
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
