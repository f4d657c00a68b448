import { type FieldError, type FieldErrorCode, invalidRequest } from './errors.js';
import type { CustomField, CustomFieldAnswer } from './models.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const E164_PATTERN = /^\+[1-9]\d{1,14}$/;
const LOCALE_PATTERN = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const DECIMAL_PATTERN = /^\d+(\.\d+)?$/;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ISO 3166-1 alpha-2 codes. */
const COUNTRIES = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '),
);

/** Countries that use no postal codes (everywhere else an order's postalCode is required). */
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

/** Collects field errors so that one 400 names every problem of a request at once. */
export class FieldErrors {
  readonly list: FieldError[] = [];

  add(field: string, code: FieldErrorCode, message: string): void {
    this.list.push({ field, code, message });
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw invalidRequest(this.list);
  }

  /** A string that must be present and not blank. */
  requiredString(value: unknown, field: string, maxLength?: number): string | undefined {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      this.add(field, 'required', `${field} is required.`);
      return undefined;
    }
    return this.checkString(value, field, maxLength);
  }

  /** A string that may be absent or null. */
  optionalString(value: unknown, field: string, maxLength?: number): string | undefined {
    if (value === undefined || value === null) return undefined;
    return this.checkString(value, field, maxLength);
  }

  /** One of `allowed`, or absent. */
  optionalOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (!allowed.includes(value as T)) {
      this.add(field, 'invalid', `${field} must be one of ${allowed.join(', ')}.`);
      return undefined;
    }
    return value as T;
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

  optionalEmail(value: unknown, field: string): string | undefined {
    const email = this.optionalString(value, field, 255);
    if (email !== undefined && !EMAIL_PATTERN.test(email)) {
      this.add(field, 'invalid', `${field} is not an e-mail address.`);
      return undefined;
    }
    return email;
  }

  /** A locale: malformed is `invalid`, well-formed but not one of the account's is `not_enabled`. */
  optionalLocale(value: unknown, field: string, enabled: readonly string[]): string {
    if (value === undefined || value === null) return 'en-US';
    if (typeof value !== 'string' || !LOCALE_PATTERN.test(value)) {
      this.add(field, 'invalid', `${field} is not a language tag such as en-US.`);
      return 'en-US';
    }
    if (!enabled.includes(value)) {
      this.add(field, 'not_enabled', `Locale ${value} is not enabled for the account (enabled: ${enabled.join(', ')}).`);
      return 'en-US';
    }
    return value;
  }

  requiredCountry(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null || value === '') {
      this.add(field, 'required', `${field} is required.`);
      return undefined;
    }
    if (!isCountry(value)) {
      this.add(field, 'invalid', `${field} must be an ISO 3166-1 alpha-2 country code such as DE.`);
      return undefined;
    }
    return value;
  }

  requiredPhone(value: unknown, field: string): string | undefined {
    const phone = this.requiredString(value, field);
    if (phone !== undefined && !E164_PATTERN.test(phone)) {
      this.add(field, 'invalid', `${field} must be an E.164 number such as +4915112345678.`);
      return undefined;
    }
    return phone;
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
 * answered or not. Unknown fieldIds are ignored; answers must fit their field's type.
 */
export function readCustomFieldAnswers(
  value: unknown,
  fields: readonly CustomField[],
  errors: FieldErrors,
): CustomFieldAnswer[] {
  const answers = new Map<string, CustomFieldAnswer>();
  if (value !== undefined && value !== null) {
    if (!Array.isArray(value)) {
      errors.add('customFields', 'invalid', 'customFields must be an array of answers.');
    } else {
      value.forEach((entry: unknown, index) => {
        const path = `customFields[${index}]`;
        if (!isPlainObject(entry)) {
          errors.add(path, 'invalid', `${path} must be an object.`);
          return;
        }
        const fieldId = errors.requiredUuid(entry.fieldId, `${path}.fieldId`);
        const textValue = errors.optionalString(entry.textValue, `${path}.textValue`, 1000);
        let checked: boolean | undefined;
        if (entry.checked !== undefined && entry.checked !== null) {
          if (typeof entry.checked === 'boolean') checked = entry.checked;
          else errors.add(`${path}.checked`, 'invalid', `${path}.checked must be a boolean.`);
        }
        if (fieldId === undefined) return;
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
