/** The config file's reader (src/core/config-file.ts) and the refunds' window check (features/refunds/gap.ts). */
import { describe, expect, it } from 'vitest';
import { checkProfile, parseWithoutPrototypes, salvageProfile } from '../../src/core/config-file.js';
import { lostWindow } from '../../src/features/refunds/gap.js';

describe('parseWithoutPrototypes', () => {
  it('makes every object without a prototype: __proto__ and constructor are ordinary members', () => {
    const parsed = parseWithoutPrototypes('{"__proto__":{"polluted":1},"a":{"constructor":{"x":2},"__proto__":[1]}}') as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.getPrototypeOf(parsed.a)).toBeNull();
    expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
    expect(parsed.polluted).toBeUndefined();
    expect(Object.hasOwn(parsed.a, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(parsed)).toBe('{"__proto__":{"polluted":1},"a":{"constructor":{"x":2},"__proto__":[1]}}');
  });
});

describe('checkProfile and salvageProfile', () => {
  it('a well-formed profile is returned as it is; a broken one salvaged to its well-formed fields', () => {
    const good = { baseUrl: 'https://x.test/v1', apiKey: 'k', keyring: { account: 'p/1', webhookSecret: true } };
    expect(checkProfile('p', good)).toBe(good);
    const broken = { baseUrl: 'https://x.test/v1', apiKey: 42, webhookSecret: 's', keyring: { account: 'p/1', apiKey: 'yes', maskedKey: 'svc_live_…abcd' } };
    expect(() => checkProfile('p', broken)).toThrow('config: profile p: apiKey is a number, not a string');
    expect(salvageProfile(broken, 'http://127.0.0.1:4010/v1')).toEqual({ baseUrl: 'https://x.test/v1', webhookSecret: 's', keyring: { account: 'p/1', maskedKey: 'svc_live_…abcd' } });
    expect(salvageProfile(42, 'http://127.0.0.1:4010/v1')).toEqual({ baseUrl: 'http://127.0.0.1:4010/v1' });
  });
});

describe('lostWindow', () => {
  it('is the span from the cursor\'s last event to the oldest kept one, only when the former is older', () => {
    const a = '2026-10-01T00:00:00.000000Z';
    const b = '2026-11-10T00:00:00.123456Z';
    expect(lostWindow(a, b)).toEqual({ from: a, to: b });
    expect(lostWindow(b, a)).toBeUndefined();
    expect(lostWindow(a, a)).toBeUndefined();
    expect(lostWindow(undefined, b)).toBeUndefined();
    expect(lostWindow(a, undefined)).toBeUndefined();
    expect(lostWindow('not a time', b)).toBeUndefined();
  });
});
