import { describe, expect, it } from 'vitest';
import type { TenantCustomField } from '../../src/api/types.js';
import { RequestChecks, findField, parseAnswer, parseFieldFlags, requireAnswers } from '../../src/features/fields.js';
import { UsageError } from '../../src/core/errors.js';

const TEXT: TenantCustomField = { id: '7f33eb38-2382-46ea-9990-8bc2195e3caa', label: 'Player ID', type: 'TEXT', required: true, options: [] };
const DROPDOWN: TenantCustomField = { id: 'd3052627-c6d3-4647-8a4c-8ea3ce672753', label: 'VIP tier', type: 'DROPDOWN', required: false, options: ['Bronze', 'Silver', 'Gold'] };
const CHECKBOX: TenantCustomField = { id: 'afbb54b2-acb6-4805-b783-ffed9f4194df', label: 'Marketing consent', type: 'CHECKBOX', required: false, options: [] };
const FIELDS = [TEXT, DROPDOWN, CHECKBOX];

describe('custom field answers', () => {
  it('finds a field by id or by label, ignoring case', () => {
    expect(findField(FIELDS, DROPDOWN.id.toUpperCase())).toBe(DROPDOWN);
    expect(findField(FIELDS, ' vip TIER ')).toBe(DROPDOWN);
    expect(findField(FIELDS, 'tier')).toBeUndefined();
  });

  it('parses each type: TEXT as is, DROPDOWN as its option, CHECKBOX true/false/yes/no', () => {
    expect(parseFieldFlags(['Player ID=P-1=2', 'vip tier=gold', `${CHECKBOX.id}=No`], FIELDS)).toEqual([
      { fieldId: TEXT.id, textValue: 'P-1=2' },
      { fieldId: DROPDOWN.id, textValue: 'Gold' },
      { fieldId: CHECKBOX.id, checked: false },
    ]);
    expect(parseAnswer(CHECKBOX, true, 'field:x')).toEqual({ fieldId: CHECKBOX.id, checked: true });
    expect(parseAnswer(CHECKBOX, 'YES', 'x')).toEqual({ fieldId: CHECKBOX.id, checked: true });
  });

  it('treats an empty value as unanswered', () => {
    expect(parseFieldFlags(['Player ID='], FIELDS)).toEqual([]);
  });

  it('refuses, naming the flag: unknown field, option not offered, bad checkbox, too long, repeated, no =', () => {
    expect(() => parseFieldFlags(['Team=Blue'], FIELDS)).toThrow(/--field: no custom field with id or label "Team"/);
    expect(() => parseFieldFlags(['VIP tier=Platinum'], FIELDS)).toThrow(/must be one of Bronze, Silver, Gold/);
    expect(() => parseFieldFlags(['Marketing consent=maybe'], FIELDS)).toThrow(/use true or false/);
    expect(() => parseFieldFlags([`Player ID=${'x'.repeat(1_001)}`], FIELDS)).toThrow(/too long/);
    expect(() => parseFieldFlags(['VIP tier=Gold', 'vip tier=Silver'], FIELDS)).toThrow(/more than once/);
    expect(() => parseFieldFlags(['VIP tier'], FIELDS)).toThrow(UsageError);
    expect(() => parseAnswer(TEXT, true, 'field:Player ID')).toThrow(/TEXT field/);
  });

  it('names required fields left unanswered', () => {
    expect(() => requireAnswers(FIELDS, [])).toThrow('--field: required custom field "Player ID" not answered');
    expect(() => requireAnswers(FIELDS, [{ fieldId: TEXT.id, textValue: 'P1' }])).not.toThrow();
  });
});

describe('request checks', () => {
  it('collects every failure with the API field and the name the user knows', () => {
    const checks = new RequestChecks((field) => ({ fullName: '--name', email: '--email' })[field] ?? field);
    checks.requiredText('  ', 'fullName', 255);
    checks.email('nope', 'email');
    checks.text('x'.repeat(256), 'message', 255);
    checks.country('DEU', 'country', true);
    checks.phone('0151', 'phone', true);
    checks.stringMap({ size: 1 }, 'variations');
    checks.answers([{ fieldId: 'x', checked: 'yes' }], 'customFields');
    expect(checks.errors.map((error) => `${error.field} ${error.code}`)).toEqual([
      'fullName required',
      'email invalid',
      'message too_long',
      'country invalid',
      'phone invalid',
      'variations invalid',
      'customFields[0].fieldId invalid',
      'customFields[0].checked invalid',
    ]);
    expect(checks.errors[0].message).toBe('--name: required');
    expect(() => checks.throwIfAny()).toThrow(UsageError);
  });

  it('upper-cases a country and checks a locale against the account\'s', () => {
    const checks = new RequestChecks();
    expect(checks.country('de', 'country', true)).toBe('DE');
    expect(checks.locale('fr-FR', 'locale', ['en-US', 'de-DE'])).toBeUndefined();
    expect(checks.errors[0].code).toBe('not_enabled');
  });
});
