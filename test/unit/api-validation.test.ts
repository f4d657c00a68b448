import { describe, expect, test } from 'vitest';
import { REQUIRED_FIELDS } from '../../src/api/generated/constants.js';
import * as validators from '../../src/api/generated/request-validators.js';
import { API_LIMITS, CAMPAIGN_STATUSES, EVENT_TYPES, FEED_EVENT_TYPES, FIELD_TYPES, LINK_STATUSES, ORDER_STATUSES, SCOPES, STORE_PHASES } from '../../src/api/types.js';
import { fieldPath, schemaFieldErrors, withoutNulls } from '../../src/api/validation.js';
import { FieldErrors, checkQuery } from '../../src/sandbox/validate.js';

/* The request checks generated from openapi/openapi.yaml, as the API's errors[] entries. */

const UUID = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';

describe('schemaFieldErrors', () => {
  const link = (body: unknown) => schemaFieldErrors(validators.createPersonalLinkBody, body, REQUIRED_FIELDS.createPersonalLink);

  test('a valid body has no errors; unknown members are ignored', () => {
    expect(link({ campaignId: UUID, fullName: 'Ada', email: 'ada@example.com', locale: 'de-DE', extra: { deep: [1] } })).toEqual([]);
  });

  test('missing and blank required members are "required"; one entry per field', () => {
    expect(link({ fullName: '   ' })).toEqual([
      { field: 'campaignId', code: 'required', message: 'campaignId is required.' },
      { field: 'fullName', code: 'required', message: 'fullName is required.' },
    ]);
  });

  test('too long, malformed and wrong types, with dotted paths into arrays', () => {
    expect(
      link({
        campaignId: 'nope',
        fullName: 'x'.repeat(256),
        email: 'not-an-address',
        message: 7,
        locale: 'german!',
        customFields: [{ fieldId: UUID, textValue: 'y'.repeat(1001) }, { textValue: 'a' }, 'z'],
      }),
    ).toEqual([
      { field: 'campaignId', code: 'invalid', message: 'campaignId must be a UUID.' },
      { field: 'fullName', code: 'too_long', message: 'fullName must be at most 255 characters.' },
      { field: 'email', code: 'invalid', message: 'email is not an e-mail address.' },
      { field: 'message', code: 'invalid', message: 'message must be a string.' },
      { field: 'locale', code: 'invalid', message: 'locale is not a language tag such as en-US.' },
      { field: 'customFields[0].textValue', code: 'too_long', message: 'customFields[0].textValue must be at most 1000 characters.' },
      { field: 'customFields[1].fieldId', code: 'required', message: 'customFields[1].fieldId is required.' },
      { field: 'customFields[2]', code: 'invalid', message: 'customFields[2] must be an object.' },
    ]);
  });

  test('lengths count characters, not UTF-16 units', () => {
    expect(link({ campaignId: UUID, fullName: '😀'.repeat(255) })).toEqual([]);
  });

  test('order recipient: nested paths, E.164, country list, blank required', () => {
    const errors = schemaFieldErrors(
      validators.placeRewardStoreOrderBody,
      { storeId: UUID, brandId: UUID, productId: UUID, coinPrice: '12.5x', recipient: { name: 'R', phone: '+0151', address: { street: 'S', city: '', country: 'XX' } } },
      REQUIRED_FIELDS.placeRewardStoreOrder,
    );
    expect(errors).toEqual([
      { field: 'coinPrice', code: 'invalid', message: 'coinPrice must be a decimal string such as "1200".' },
      { field: 'recipient.phone', code: 'invalid', message: 'recipient.phone must be an E.164 number such as +4915112345678.' },
      { field: 'recipient.address.city', code: 'required', message: 'recipient.address.city is required.' },
      { field: 'recipient.address.country', code: 'invalid', message: 'recipient.address.country must be an ISO 3166-1 alpha-2 country code such as DE.' },
    ]);
  });

  test('fieldPath and withoutNulls', () => {
    expect(fieldPath('/recipient/address/city')).toBe('recipient.address.city');
    expect(fieldPath('/customFields/0/fieldId')).toBe('customFields[0].fieldId');
    expect(fieldPath('/0', 'customFields')).toBe('customFields[0]');
    expect(withoutNulls({ a: null, b: { c: null, d: 1 }, e: [null, { f: null }] })).toEqual({ b: { d: 1 }, e: [null, {}] });
  });
});

describe('checkQuery', () => {
  test('integers read as numbers, enums and UUIDs checked, unknown parameters ignored', () => {
    const errors = new FieldErrors();
    expect(checkQuery('listPersonalLinks', new URLSearchParams(`limit=7&status=ACTIVE&brandId=${UUID}&x=1`), errors)).toEqual({ limit: 7, status: 'ACTIVE', brandId: UUID, x: '1' });
    expect(errors.list).toEqual([]);
  });

  test('each bad parameter is one errors[] entry and is left out', () => {
    const errors = new FieldErrors();
    expect(checkQuery('listPersonalLinks', new URLSearchParams('limit=0&status=OPEN&campaignId=abc'), errors)).toEqual({});
    expect(errors.list).toEqual([
      { field: 'campaignId', code: 'invalid', message: 'campaignId must be a UUID.' },
      { field: 'status', code: 'invalid', message: 'status must be one of REQUESTED, ACTIVE, CLAIMED, EXPIRED, CANCELLED.' },
      { field: 'limit', code: 'invalid', message: 'limit must be at least 1.' },
    ]);
    const more = new FieldErrors();
    checkQuery('getRewardStore', new URLSearchParams('limit=1.5&country=de'), more);
    expect(more.list).toEqual([
      { field: 'brandId', code: 'required', message: 'brandId is required.' },
      { field: 'country', code: 'invalid', message: 'country must be an ISO 3166-1 alpha-2 country code such as DE.' },
    ]);
    const paging = new FieldErrors();
    checkQuery('listEvents', new URLSearchParams('limit=101&after='), paging);
    expect(paging.list).toEqual([{ field: 'limit', code: 'invalid', message: 'limit must be at most 100.' }]);
  });
});

test('the enums and limits svc reads come from the document', () => {
  expect(LINK_STATUSES).toEqual(['REQUESTED', 'ACTIVE', 'CLAIMED', 'EXPIRED', 'CANCELLED']);
  expect(ORDER_STATUSES).toEqual(['REQUESTED', 'PROCESSING', 'SENT', 'COMPLETED', 'CANCELLED']);
  expect(CAMPAIGN_STATUSES).toEqual(['ACTIVE', 'COMPLETED']);
  expect(SCOPES).toEqual(['PERSONAL_LINKS', 'REWARD_STORES']);
  expect(FIELD_TYPES).toEqual(['TEXT', 'CHECKBOX', 'DROPDOWN']);
  expect(STORE_PHASES).toEqual(['SCHEDULED', 'LIVE']);
  expect(EVENT_TYPES).toHaveLength(10);
  expect(FEED_EVENT_TYPES).toEqual(EVENT_TYPES.filter((type) => type !== 'ping'));
  expect(API_LIMITS).toEqual({
    linkFullName: 255,
    linkEmail: 255,
    linkMessage: 255,
    cancelReason: 1000,
    customFieldText: 1000,
    recipientName: 100,
    recipientEmail: 255,
    street: 255,
    city: 100,
    postalCode: 20,
    additionalDetails: 2000,
    idempotencyKey: 255,
    pageSizeMin: 1,
    pageSizeMax: 100,
    pageSizeDefault: 25,
  });
});
