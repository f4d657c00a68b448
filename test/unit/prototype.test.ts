/**
 * JSON from outside has no prototype: each copy of outside data defines its members (a `__proto__`
 * member stays a member, never the copy's prototype) and reads only its own members.
 */
import { describe, expect, test } from 'vitest';
import { withoutNulls } from '../../src/api/validation.js';
import { project } from '../../src/core/field-paths.js';
import { redactPersonal } from '../../src/core/secrets.js';
import { draftFromFlags } from '../../src/commands/orders/place.js';
import { savedHeaders } from '../../src/features/webhooks/saver.js';

const hostile = (): Record<string, unknown> => JSON.parse('{"__proto__":{"campaignId":"c","fullName":"X"},"constructor":{"name":"y"},"kept":null}') as Record<string, unknown>;

describe('copies of outside JSON', () => {
  test('withoutNulls keeps __proto__ and constructor as own members and inherits nothing', () => {
    const copy = withoutNulls(hostile()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'constructor']);
    expect(copy.campaignId).toBeUndefined();
    expect(copy.fullName).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"campaignId":"c","fullName":"X"},"constructor":{"name":"y"}}');
  });

  test('redactPersonal writes a __proto__ member back as a member', () => {
    expect(redactPersonal('{"__proto__":{"email":"a@b.c"},"id":"1"}')).toBe('{"__proto__":{"email":"[redacted]"},"id":"1"}');
  });

  test('--fields naming __proto__ or constructor selects those keys only', () => {
    const item = JSON.parse('{"__proto__":{"x":1},"constructor":2,"id":"a"}') as unknown;
    const chosen = project(item, ['__proto__.x', 'constructor', 'id', 'toString']);
    expect(JSON.stringify(chosen)).toBe('{"__proto__":{"x":1},"constructor":2,"id":"a","toString":null}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  test('--variation __proto__=x and constructor=y are dimensions like any other', () => {
    const draft = draftFromFlags({ variation: ['__proto__=x', 'constructor=y'] } as Parameters<typeof draftFromFlags>[0]);
    expect(JSON.stringify(draft.variations)).toBe('{"__proto__":"x","constructor":"y"}');
  });

  test('a delivery header named __proto__ is saved as a header', () => {
    const headers = Object.fromEntries([['__proto__', 'p'], ['authorization', 'Bearer s'], ['content-type', 'application/json']]);
    expect(JSON.stringify(savedHeaders(headers))).toBe('{"__proto__":"p","authorization":"[redacted]","content-type":"application/json"}');
  });
});
