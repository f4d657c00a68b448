import { COUNTRY_CODES, PATTERNS, QUERY_INTEGERS, REQUIRED_FIELDS, type OperationId } from '../api/generated/constants.js';
import * as validators from '../api/generated/request-validators.js';
import { type Validator, schemaFieldErrors, withoutNulls } from '../api/validation.js';
import { type FieldError, type FieldErrorCode, invalidRequest } from './errors.js';
import type { CustomField, CustomFieldAnswer } from './models.js';

// Formats and enums come from the API description (openapi/openapi.yaml), compiled at build time.
const UUID_PATTERN = new RegExp(PATTERNS.uuid, 'u');
const DECIMAL_PATTERN = new RegExp(PATTERNS.decimal, 'u');

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const COUNTRIES: ReadonlySet<string> = new Set(COUNTRY_CODES);

/**
 * Countries that use no postal codes (everywhere else an order's postalCode is required): a rule the
 * spec states in prose ("required where the country uses postal codes"), so it stays here.
 */
const COUNTRIES_WITHOUT_POSTAL_CODES = new Set(
  ('AE AG AO AW BF BI BJ BO BS BW BZ CD CF CG CI CK CM DJ DM ER FJ GA GD GH GM GQ GY HK IE JM KI KM KN KP LC ML MO ' +
    'MR MS MW NR NU QA RW SB SC SL SO SR ST SY TD TF TG TK TL TO TT TV TZ UG VU YE ZW').split(' '),
);

export function isCountry(value: unknown): value is string {
  return typeof value === 'string' && COUNTRIES.has(value);
}

export function usesPostalCodes(country: string): boolean {
  return !COUNTRIES_WITHOUT_POSTAL_CODES.has(country);
}

export function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_PATTERN.test(value);
}

/** Compares two decimal strings by value ("1200" equals "1200.00"). */
export function sameDecimal(a: string, b: string): boolean {
  const normalise = (s: string): string => {
    const [whole, fraction = ''] = s.split('.');
    return `${whole.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
  };
  return normalise(a) === normalise(b);
}

type RequestValidatorName = Exclude<keyof typeof validators, 'default'>;

function validator(name: string): Validator {
  const found = (validators as Record<string, Validator | undefined>)[name as RequestValidatorName];
  if (found === undefined) throw new Error(`no request validator ${name}`);
  return found;
}

/**
 * Checks a request body against the operation's schema in the API description, recording each
 * failure in `errors`. Returns the body without its null members (null reads as absent).
 */
export function checkBody(operationId: OperationId, body: Record<string, unknown>, errors: FieldErrors): Record<string, unknown> {
  const clean = withoutNulls(body) as Record<string, unknown>;
  for (const e of schemaFieldErrors(validator(`${operationId}Body`), clean, REQUIRED_FIELDS[operationId])) errors.add(e.field, e.code, e.message);
  return clean;
}

/**
 * Checks the query string against the operation's parameters in the API description. Returns the
 * parameters the document describes, integers read as numbers; a value that failed is left out.
 */
export function checkQuery(operationId: OperationId, query: URLSearchParams, errors: FieldErrors): Record<string, string | number | undefined> {
  const integers = QUERY_INTEGERS[operationId] ?? [];
  // No prototype: `?__proto__=` or `?constructor=` is an unknown parameter like any other.
  const values: Record<string, string | number> = Object.create(null) as Record<string, string | number>;
  for (const [name, value] of query) {
    if (Object.hasOwn(values, name)) continue;
    values[name] = integers.includes(name) && /^\d{1,15}$/.test(value) ? Number(value) : value;
  }
  const found = schemaFieldErrors(validator(`${operationId}Query`), values, REQUIRED_FIELDS[operationId]);
  for (const e of found) {
    errors.add(e.field, e.code, e.message);
    delete values[e.field];
  }
  return values;
}

/** Collects field errors so that one 400 names every problem of a request at once. */
export class FieldErrors {
  readonly list: FieldError[] = [];

  /** Records a problem; the same field and code is recorded once. */
  add(field: string, code: FieldErrorCode, message: string): void {
    if (this.list.some((e) => e.field === field && e.code === code)) return;
    this.list.push({ field, code, message });
  }

  /** Whether a problem with `field` was recorded. */
  has(field: string): boolean {
    return this.list.some((e) => e.field === field);
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw invalidRequest(this.list);
  }

  /** A string that must be present and not blank (admin calls, which the API description does not cover). */
  requiredString(value: unknown, field: string, maxLength?: number): string | undefined {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      this.add(field, 'required', `${field} is required.`);
      return undefined;
    }
    return this.checkString(value, field, maxLength);
  }

  /** A string that may be absent or null (admin calls). */
  optionalString(value: unknown, field: string, maxLength?: number): string | undefined {
    if (value === undefined || value === null) return undefined;
    return this.checkString(value, field, maxLength);
  }

  optionalBoolean(value: unknown, field: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.add(field, 'invalid', `${field} must be true or false.`);
      return undefined;
    }
    return value;
  }

  requiredUuid(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null || value === '') {
      this.add(field, 'required', `${field} is required.`);
      return undefined;
    }
    return this.checkUuid(value, field);
  }

  optionalUuid(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    return this.checkUuid(value, field);
  }

  /**
   * A locale the schema let through must also be one of the account's (`not_enabled`): a rule the
   * spec states against account state. Absent, or already refused by the schema: en-US.
   */
  enabledLocale(value: unknown, field: string, enabled: readonly string[]): string {
    if (typeof value !== 'string' || this.has(field)) return 'en-US';
    if (!enabled.includes(value)) {
      this.add(field, 'not_enabled', `Locale ${value} is not enabled for the account (enabled: ${enabled.join(', ')}).`);
      return 'en-US';
    }
    return value;
  }

  private checkString(value: unknown, field: string, maxLength?: number): string | undefined {
    if (typeof value !== 'string') {
      this.add(field, 'invalid', `${field} must be a string.`);
      return undefined;
    }
    if (maxLength !== undefined && value.length > maxLength) {
      this.add(field, 'too_long', `${field} must be at most ${maxLength} characters.`);
      return undefined;
    }
    return value;
  }

  private checkUuid(value: unknown, field: string): string | undefined {
    if (!isUuid(value)) {
      this.add(field, 'invalid', `${field} must be a UUID.`);
      return undefined;
    }
    return value.toLowerCase();
  }
}

/**
 * Custom field answers of a link or an order: one entry per account field, in display order,
 * answered or not. Their shape is checked against the API description; what depends on the
 * account's fields is checked here, as the spec states it in prose: unknown fieldIds are ignored,
 * answers must fit their field's type, required fields must be answered.
 */
export function readCustomFieldAnswers(
  value: unknown,
  fields: readonly CustomField[],
  errors: FieldErrors,
): CustomFieldAnswer[] {
  const answers = new Map<string, CustomFieldAnswer>();
  const entries = value === undefined || value === null ? [] : withoutNulls(value, 2);
  const shapeErrors = schemaFieldErrors(validators.customFieldAnswers, entries, ['[].fieldId'], 'customFields');
  for (const e of shapeErrors) errors.add(e.field, e.code, e.message);
  if (Array.isArray(entries)) {
    entries.forEach((entry: unknown, index) => {
      const path = `customFields[${index}]`;
      if (!isPlainObject(entry) || shapeErrors.some((e) => e.field === path || e.field.startsWith(`${path}.`))) return;
      const fieldId = (entry.fieldId as string).toLowerCase();
      const textValue = entry.textValue as string | undefined;
      const checked = entry.checked as boolean | undefined;
      const field = fields.find((f) => f.id === fieldId);
      if (field === undefined) return;
      const problem = answerProblem(field, textValue, checked);
      if (problem !== null) {
        errors.add('customFields', 'invalid', `${path}: ${problem}`);
        return;
      }
      answers.set(field.id, {
        fieldId: field.id,
        textValue: field.type === 'CHECKBOX' ? null : (textValue ?? null),
        checked: field.type === 'CHECKBOX' ? (checked ?? null) : null,
      });
    });
  }
  const result: CustomFieldAnswer[] = [];
  for (const field of fields) {
    const answer = answers.get(field.id) ?? { fieldId: field.id, textValue: null, checked: null };
    const answered = answer.checked !== null || (answer.textValue !== null && answer.textValue.trim() !== '');
    if (field.required && !answered) {
      errors.add('customFields', 'invalid', `The required field "${field.label}" (${field.id}) is not answered.`);
    }
    result.push(answer);
  }
  return result;
}

function answerProblem(field: CustomField, textValue: string | undefined, checked: boolean | undefined): string | null {
  switch (field.type) {
    case 'TEXT':
      return checked !== undefined ? `"${field.label}" is a TEXT field and takes textValue, not checked.` : null;
    case 'DROPDOWN':
      if (checked !== undefined) return `"${field.label}" is a DROPDOWN field and takes textValue, not checked.`;
      if (textValue !== undefined && !field.options.includes(textValue)) {
        return `"${textValue}" is not one of the options of "${field.label}" (${field.options.join(', ')}).`;
      }
      return null;
    case 'CHECKBOX':
      return textValue !== undefined ? `"${field.label}" is a CHECKBOX field and takes checked, not textValue.` : null;
  }
}
