/**
 * Turns the failures of a validator generated from the API description into the API's own
 * `errors[]` entries: `field` as a dotted path (`recipient.phone`, `customFields[0].fieldId`), code
 * `required` (missing or blank), `too_long` or `invalid`. Used by the sandbox's request checks; the
 * validators themselves are compiled at build time (`src/api/generated/`).
 */
import { PATTERNS } from './generated/constants.js';
import type { SchemaError, Validator } from './generated/request-validators.js';

export type { SchemaError, Validator };

export interface SchemaFieldError {
  field: string;
  code: 'required' | 'invalid' | 'too_long';
  message: string;
}

/** What a value must look like, by the format or pattern of the document's schema it failed. */
const FORMAT_MESSAGES: Record<string, string> = {
  uuid: 'must be a UUID',
  email: 'is not an e-mail address',
  [PATTERNS.uuid]: 'must be a UUID',
  [PATTERNS.phoneE164]: 'must be an E.164 number such as +4915112345678',
  [PATTERNS.locale]: 'is not a language tag such as en-US',
  [PATTERNS.decimal]: 'must be a decimal string such as "1200"',
  '\\S': 'must not be blank',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  integer: 'an integer',
  number: 'a number',
};

const PRIORITY = { required: 0, too_long: 1, invalid: 2 } as const;

/** `/customFields/0/fieldId` → `customFields[0].fieldId`. */
export function fieldPath(pointer: string, prefix = ''): string {
  let path = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`;
  }
  return path;
}

function valueAt(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function describe(error: SchemaError, field: string): string {
  const params = error.params;
  switch (error.keyword) {
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters.`;
    case 'type':
      return `${field} must be ${TYPE_WORDS[String(params.type)] ?? String(params.type)}.`;
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      // The one long enum is the ISO 3166-1 alpha-2 country list.
      if (allowed.length > 20 && allowed.includes('DE')) return `${field} must be an ISO 3166-1 alpha-2 country code such as DE.`;
      return `${field} must be one of ${allowed.join(', ')}.`;
    }
    case 'minimum':
    case 'maximum':
      return `${field} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}.`;
    case 'format':
    case 'pattern': {
      const known = FORMAT_MESSAGES[String(params.format ?? params.pattern)];
      return known === undefined ? `${field} is not valid.` : `${field} ${known}.`;
    }
    default:
      return `${field} is not valid.`;
  }
}

/**
 * The failures of `validate(data)` as errors[] entries, one per field (the most telling: required,
 * then too_long, then invalid). `required` lists the dotted paths the schema requires (`[]` for any
 * index), so that a blank value of a required member reads "required" as the spec says.
 */
export function schemaFieldErrors(validate: Validator, data: unknown, required: readonly string[] = [], prefix = ''): SchemaFieldError[] {
  if (validate(data)) return [];
  const byField = new Map<string, SchemaFieldError>();
  for (const error of validate.errors ?? []) {
    let entry: SchemaFieldError;
    if (error.keyword === 'required') {
      const field = fieldPath(`${error.instancePath}/${String(error.params.missingProperty)}`, prefix);
      entry = { field, code: 'required', message: `${field} is required.` };
    } else if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      continue;
    } else {
      const field = fieldPath(error.instancePath, prefix);
      if (field === prefix && field === '') continue;
      const value = valueAt(data, error.instancePath);
      const blank = typeof value === 'string' && value.trim() === '';
      if (blank && required.includes(fieldPath(error.instancePath).replace(/\[\d+\]/g, '[]'))) {
        entry = { field, code: 'required', message: `${field} is required.` };
      } else if (error.keyword === 'maxLength') {
        entry = { field, code: 'too_long', message: describe(error, field) };
      } else {
        entry = { field, code: 'invalid', message: describe(error, field) };
      }
    }
    const known = byField.get(entry.field);
    if (known === undefined || PRIORITY[entry.code] < PRIORITY[known.code]) byField.set(entry.field, entry);
  }
  return [...byField.values()];
}

/**
 * A copy of a JSON object without its null members, down to `depth` levels: the API reads a null
 * member as an absent one (a required member that is null is "required"). Members are defined, never
 * assigned, so a `__proto__` member stays an ordinary (unknown) member and nothing is inherited.
 */
export function withoutNulls(value: unknown, depth = 4): unknown {
  if (depth <= 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutNulls(item, depth - 1));
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== null).map(([name, member]) => [name, withoutNulls(member, depth - 1)]));
}
