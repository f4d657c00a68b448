import { describe, expect, it } from 'vitest';
import type { TenantCustomField } from '../../src/api/types.js';
import { RowKeys, prepareRow } from '../../src/features/bulk/rows.js';
import { canonicalJson } from '../../src/core/canonical-json.js';

const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const FIELDS: TenantCustomField[] = [
  { id: '11111111-1111-4111-8111-111111111111', label: 'VIP tier', type: 'DROPDOWN', required: false, options: ['Bronze', 'Gold'] },
  { id: '22222222-2222-4222-8222-222222222222', label: 'Consent', type: 'CHECKBOX', required: false, options: [] },
];

function keysOf(records: Record<string, unknown>[]): string[] {
  const keys = new RowKeys();
  return records.map((record, index) => {
    const prepared = prepareRow(index + 1, record, FIELDS, keys);
    if (!('idempotencyKey' in prepared)) throw new Error(prepared.problem.detail);
    return prepared.idempotencyKey;
  });
}

describe('bulk row keys', () => {
  const file = [
    { campaignId: CAMPAIGN, fullName: 'Ada' },
    { campaignId: CAMPAIGN, fullName: 'Bob' },
    { campaignId: CAMPAIGN, fullName: 'Ada' },
  ];

  it('are the same for the same file, run after run', () => {
    expect(keysOf(file)).toEqual(keysOf(file));
  });

  it('differ for identical rows, so each still makes its own link', () => {
    const [first, , third] = keysOf(file);
    expect(first).not.toBe(third);
  });

  it('follow the content, not the position: a row added in front shifts no other key', () => {
    const before = keysOf(file);
    const after = keysOf([{ campaignId: CAMPAIGN, fullName: 'Zed' }, ...file]);
    expect(after.slice(1)).toEqual(before);
  });

  it('ignore member order and stay within the 255-character limit', () => {
    const [a] = keysOf([{ fullName: 'Ada', campaignId: CAMPAIGN }]);
    const [b] = keysOf([{ campaignId: CAMPAIGN, fullName: 'Ada' }]);
    expect(a).toBe(b);
    expect(a.length).toBeLessThanOrEqual(255);
  });

  it('use a row\'s own idempotencyKey when it has one', () => {
    expect(keysOf([{ campaignId: CAMPAIGN, fullName: 'Ada', idempotencyKey: 'mine-1' }])).toEqual(['mine-1']);
  });

  it('canonical JSON sorts members at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});

describe('bulk row requests', () => {
  it('answers custom fields by label, with the field\'s type', () => {
    const prepared = prepareRow(1, { campaignId: CAMPAIGN, fullName: 'Ada', 'field:vip TIER': 'gold', 'field:Consent': 'no' }, FIELDS, new RowKeys());
    expect(prepared).toMatchObject({
      body: {
        campaignId: CAMPAIGN,
        fullName: 'Ada',
        customFields: [
          { fieldId: FIELDS[0].id, textValue: 'Gold' },
          { fieldId: FIELDS[1].id, checked: false },
        ],
      },
    });
  });

  it('reports every failed check of a malformed row as invalid_row', () => {
    const prepared = prepareRow(4, { campaignId: 'nope', email: 'x', 'field:Unknown': '1', 'field:Consent': 'maybe' }, FIELDS, new RowKeys());
    if (!('problem' in prepared)) throw new Error('a malformed row was accepted');
    expect(prepared.problem.code).toBe('invalid_row');
    expect(prepared.problem.detail).toMatch(/^row 4: /);
    expect(prepared.problem.errors.map((error) => `${error.field}:${error.code}`)).toEqual([
      'campaignId:invalid',
      'fullName:required',
      'email:invalid',
      'field:Unknown:invalid',
      'field:Consent:invalid',
    ]);
  });
});
