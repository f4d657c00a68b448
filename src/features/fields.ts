/**
 * What links and orders share about request fields: checking values against the spec's limits
 * before sending (so a mistake costs no round trip), and the account's custom fields — resolving a
 * field by id or label, parsing an answer by the field's type, and asking for answers on a TTY.
 */
import { ApiClient } from '../api/client.js';
import { API_LIMITS, type CustomFieldInput, type TenantCustomField } from '../api/types.js';
import { UsageError, type FieldError } from '../core/errors.js';
import type { Prompter } from '../core/prompter.js';
import * as validate from '../api/checks.js';

/**
 * The spec's length limits, shared by links, orders and the prompts that ask for them: read from the
 * API description (openapi/openapi.yaml) through its generated constants, never written here.
 */
export const LIMITS = {
  /** fullName and message of a link. */
  linkText: API_LIMITS.linkFullName,
  cancelReason: API_LIMITS.cancelReason,
  customFieldText: API_LIMITS.customFieldText,
  recipientName: API_LIMITS.recipientName,
  city: API_LIMITS.city,
  street: API_LIMITS.street,
  email: API_LIMITS.recipientEmail,
  postalCode: API_LIMITS.postalCode,
  additionalDetails: API_LIMITS.additionalDetails,
  idempotencyKey: API_LIMITS.idempotencyKey,
} as const;

/**
 * Collects every failed check of one request as the API's own `errors[]` entries, so a command can
 * report them as a usage error (naming flags) and a bulk row as a problem (naming columns).
 * `name` turns an API field path into what the user typed: a flag, a column or a file path.
 */
export class RequestChecks {
  readonly errors: FieldError[] = [];

  constructor(private readonly name: (field: string) => string = (field) => field) {}

  /** A string that must be present and not blank, within `max` characters. */
  requiredText(value: unknown, field: string, max?: number): string | undefined {
    return this.string(value, field, true, max);
  }

  /** An optional string within `max` characters. */
  text(value: unknown, field: string, max?: number): string | undefined {
    return this.string(value, field, false, max);
  }

  /** A string, required (present and not blank) or not, within `max` characters. */
  string(value: unknown, field: string, required: boolean, max?: number): string | undefined {
    if (required && isBlank(value)) {
      this.add(field, 'required', `${this.name(field)}: required`);
      return undefined;
    }
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.add(field, 'invalid', `${this.name(field)}: must be a string`);
      return undefined;
    }
    if (max !== undefined) return this.guard(field, 'too_long', () => validate.maxLength(value, max, this.name(field)));
    return value;
  }

  uuid(value: unknown, field: string, required: boolean): string | undefined {
    return this.formatted(value, field, required, validate.uuid);
  }

  email(value: unknown, field: string): string | undefined {
    return this.formatted(value, field, false, validate.email);
  }

  phone(value: unknown, field: string, required: boolean): string | undefined {
    return this.formatted(value, field, required, validate.e164);
  }

  /** Two letters; upper-cased, as ISO 3166-1 writes them. */
  country(value: unknown, field: string, required: boolean): string | undefined {
    return this.formatted(value, field, required, validate.country);
  }

  /** A language tag; when the account's locales are known, one of them. */
  locale(value: unknown, field: string, enabled?: readonly string[]): string | undefined {
    const text = this.text(value, field);
    if (text === undefined) return undefined;
    const tag = this.guard(field, 'invalid', () => validate.locale(text, this.name(field)));
    if (tag !== undefined && enabled && enabled.length > 0 && !enabled.includes(tag)) {
      this.add(field, 'not_enabled', `${this.name(field)}: ${tag} is not enabled for the account (enabled: ${enabled.join(', ')})`);
      return undefined;
    }
    return tag;
  }

  decimal(value: unknown, field: string, required: boolean): string | undefined {
    return this.formatted(value, field, required, validate.decimal);
  }

  /** A string that must also pass one of validate's format checks (which names the field itself). */
  private formatted(value: unknown, field: string, required: boolean, check: (text: string, name: string) => string | undefined): string | undefined {
    const text = this.string(value, field, required);
    return text === undefined ? undefined : this.guard(field, 'invalid', () => check(text, this.name(field)));
  }

  /** An object of string values (an order's `variations`). */
  stringMap(value: unknown, field: string): Record<string, string> | undefined {
    if (value === undefined || value === null) return undefined;
    const valid = typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');
    if (!valid) {
      this.add(field, 'invalid', `${this.name(field)}: must be an object of NAME: VALUE strings`);
      return undefined;
    }
    return value as Record<string, string>;
  }

  /** Custom field answers as the API takes them: `{fieldId, textValue?|checked?}` each. */
  answers(value: unknown, field: string): CustomFieldInput[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.add(field, 'invalid', `${this.name(field)}: must be a list of {fieldId, textValue | checked}`);
      return undefined;
    }
    return value.flatMap((answer: unknown, index) => {
      const at = `${field}[${index}]`;
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
        this.add(at, 'invalid', `${this.name(at)}: must be an object {fieldId, textValue | checked}`);
        return [];
      }
      const { fieldId, textValue, checked } = answer as Record<string, unknown>;
      const id = this.uuid(fieldId, `${at}.fieldId`, true);
      const text = this.text(textValue, `${at}.textValue`, LIMITS.customFieldText);
      if (checked !== undefined && typeof checked !== 'boolean') this.add(`${at}.checked`, 'invalid', `${this.name(`${at}.checked`)}: must be true or false`);
      if (id === undefined) return [];
      return [{ fieldId: id, ...(text !== undefined ? { textValue: text } : {}), ...(typeof checked === 'boolean' ? { checked } : {}) }];
    });
  }

  add(field: string, code: string, message: string): void {
    this.errors.push({ field, code, message });
  }

  /** Throws one usage error (exit 2) listing every failed check, if any failed. */
  throwIfAny(): void {
    if (this.errors.length > 0) throw new UsageError(this.errors.map((error) => error.message).join('; '));
  }

  /** Runs a `validate.*` check, recording its message instead of throwing it. */
  private guard<T>(field: string, code: string, check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      this.add(field, code, error.message);
      return undefined;
    }
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A custom field by its id, or by its label ignoring case and surrounding spaces. */
export function findField(fields: readonly TenantCustomField[], idOrLabel: string): TenantCustomField | undefined {
  const wanted = idOrLabel.trim().toLowerCase();
  return fields.find((field) => field.id.toLowerCase() === wanted) ?? fields.find((field) => field.label.trim().toLowerCase() === wanted);
}

const CHECKED: Record<string, boolean> = { true: true, yes: true, false: false, no: false };

/**
 * One answer from text, by the field's type: TEXT as is (max 1,000), DROPDOWN one of its options
 * (case-insensitive, sent as the option is written), CHECKBOX true/false/yes/no.
 * An empty value means "not answered" and gives undefined. `name` says where the value came from.
 */
export function parseAnswer(field: TenantCustomField, raw: string | boolean, name: string): CustomFieldInput | undefined {
  if (typeof raw === 'boolean') {
    if (field.type !== 'CHECKBOX') throw new UsageError(`${name}: "${field.label}" is a ${field.type} field; give text, not ${raw}`);
    return { fieldId: field.id, checked: raw };
  }
  if (raw.trim() === '') return undefined;
  switch (field.type) {
    case 'CHECKBOX': {
      const checked = CHECKED[raw.trim().toLowerCase()];
      if (checked === undefined) throw new UsageError(`${name}: "${field.label}" is a checkbox; use true or false, got ${raw}`);
      return { fieldId: field.id, checked };
    }
    case 'DROPDOWN': {
      const option = field.options.find((candidate) => candidate === raw) ?? field.options.find((candidate) => candidate.toLowerCase() === raw.trim().toLowerCase());
      if (option === undefined) throw new UsageError(`${name}: "${field.label}" must be one of ${field.options.join(', ')}; got ${raw}`);
      return { fieldId: field.id, textValue: option };
    }
    default:
      return { fieldId: field.id, textValue: validate.maxLength(raw, LIMITS.customFieldText, name) };
  }
}

/** A field named by id or label, or a usage error that lists the fields there are. */
export function requireField(fields: readonly TenantCustomField[], idOrLabel: string, name: string): TenantCustomField {
  const field = findField(fields, idOrLabel);
  if (field) return field;
  const known = fields.map((candidate) => `"${candidate.label}"`).join(', ') || 'none';
  throw new UsageError(`${name}: no custom field with id or label "${idOrLabel}" (the account's fields: ${known})`);
}

/** `--field FIELD=VALUE` flags → answers; each field at most once. */
export function parseFieldFlags(values: readonly string[] | undefined, fields: readonly TenantCustomField[], flag = '--field'): CustomFieldInput[] {
  const answers: CustomFieldInput[] = [];
  const seen = new Set<string>();
  for (const [key, value] of validate.pairs(values, flag)) {
    const field = requireField(fields, key, flag);
    if (seen.has(field.id)) throw new UsageError(`${flag}: "${field.label}" given more than once`);
    seen.add(field.id);
    const answer = parseAnswer(field, value, `${flag} ${key}`);
    if (answer) answers.push(answer);
  }
  return answers;
}

/** Required fields without an answer. */
export function unansweredRequired(fields: readonly TenantCustomField[], answers: readonly CustomFieldInput[]): TenantCustomField[] {
  const answered = new Set(answers.map((answer) => answer.fieldId));
  return fields.filter((field) => field.required && !answered.has(field.id));
}

/** Exit 2 naming `--field` and each required field that has no answer (no TTY to ask on). */
export function requireAnswers(fields: readonly TenantCustomField[], answers: readonly CustomFieldInput[], flag = '--field'): void {
  const missing = unansweredRequired(fields, answers);
  if (missing.length > 0) {
    throw new UsageError(`${flag}: required custom field${missing.length > 1 ? 's' : ''} ${missing.map((field) => `"${field.label}"`).join(', ')} not answered`);
  }
}

/**
 * Asks, in the account's display order, for each field not answered yet: TEXT as input, DROPDOWN as
 * a select, CHECKBOX as yes/no. Required fields cannot be skipped; an optional TEXT left empty and
 * the "skip" choice of an optional DROPDOWN stay unanswered. Returns all answers, given ones first.
 */
export async function promptAnswers(
  prompter: Prompter,
  fields: readonly TenantCustomField[],
  given: readonly CustomFieldInput[],
): Promise<CustomFieldInput[]> {
  const answered = new Set(given.map((answer) => answer.fieldId));
  const answers = [...given];
  for (const field of fields) {
    if (answered.has(field.id)) continue;
    const answer = await promptAnswer(prompter, field);
    if (answer) answers.push(answer);
  }
  return answers;
}

async function promptAnswer(prompter: Prompter, field: TenantCustomField): Promise<CustomFieldInput | undefined> {
  const label = field.required ? field.label : `${field.label} (optional)`;
  // An optional field left alone stays unanswered: skipping is the first choice, so Enter records nothing.
  const skip = { name: '(skip)', value: null };
  switch (field.type) {
    case 'CHECKBOX': {
      if (field.required) return { fieldId: field.id, checked: await prompter.confirm(label, false) };
      const checked = await prompter.select<boolean | null>(label, [skip, { name: 'yes', value: true }, { name: 'no', value: false }]);
      return checked === null ? undefined : { fieldId: field.id, checked };
    }
    case 'DROPDOWN': {
      const choices = field.options.map((option) => ({ name: option, value: option as string | null }));
      const value = await prompter.select(label, field.required ? choices : [skip, ...choices]);
      return value === null ? undefined : { fieldId: field.id, textValue: value };
    }
    default: {
      const value = await prompter.input(label, { required: field.required, validate: lengthRule(LIMITS.customFieldText) });
      return value === '' ? undefined : { fieldId: field.id, textValue: value };
    }
  }
}

/** A `validate.*` check as a prompt validator: its message instead of an exception. */
export function promptRule(check: () => unknown): string | true {
  try {
    check();
    return true;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error.message;
  }
}

/** A prompt validator for a maximum length, counted in characters as the API counts them. */
export function lengthRule(max: number): (value: string) => string | true {
  return (value) => ([...value].length <= max ? true : `at most ${max} characters (${[...value].length} given)`);
}

/** An API refusal whose detail is put in words a person can act on, with an optional hint. */
/** --idempotency-key as given (1 to 255 characters), else a fresh one kept for every retry. */
export function checkIdempotencyKey(value: string | undefined): string {
  if (value === undefined) return ApiClient.newIdempotencyKey();
  const checks = new RequestChecks(() => '--idempotency-key');
  const key = checks.requiredText(value, 'idempotencyKey', LIMITS.idempotencyKey);
  checks.throwIfAny();
  return key!;
}

/** A request body without the members that were not given (so JSON omits them). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
