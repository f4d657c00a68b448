/** Edges of the signature scheme: what the signed message is, strict header parsing, verification without a t. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, matchesAny, parseSignatureHeader, signatureHeader, verifySignature } from '../../src/core/signature.js';

const SECRET = 's'.repeat(32);
const HEX = 'a'.repeat(64);
const hmac = (message: string) => createHmac('sha256', SECRET).update(message).digest('hex');

describe('signing', () => {
  it('signs "<t>.<body>" with the secret as text', () => {
    expect(computeSignature(SECRET, 1700000000, '{"a":1}')).toBe(hmac('1700000000.{"a":1}'));
    expect(signatureHeader(SECRET, 5, Buffer.from('x'))).toBe(`t=5,v1=${hmac('5.x')}`);
  });
});

describe('parseSignatureHeader', () => {
  it('names a value that starts with the header name, with or without spaces before the colon', () => {
    for (const value of [`Svc-Signature: t=1,v1=${HEX}`, `svc-signature :t=1,v1=${HEX}`]) {
      expect(parseSignatureHeader(value).problems[0]).toBe('the value starts with the header name; pass only what follows "Svc-Signature:"');
    }
    expect(parseSignatureHeader(`x-svc-signature=1,t=1,v1=${HEX}`).problems).toEqual([]);
  });

  it('a pair without a name, or with a name of other characters, makes the header malformed', () => {
    expect(parseSignatureHeader(`t=1,v1=${HEX},junk`).problems).toEqual(['pair 3 "junk" is not name=value']);
    expect(parseSignatureHeader(`=x,t=1,v1=${HEX}`).problems).toEqual(['pair 1 "=x" is not name=value']);
    expect(parseSignatureHeader(`t=1,v0!=x,v1=${HEX}`).problems).toEqual(['pair 2 "v0!=x" is not name=value']);
    expect(parseSignatureHeader(`t=1,v1=${HEX},v_2-b=x`)).toEqual({ timestamp: '1', signatures: [HEX], otherSchemes: ['v_2-b'], unusable: [], problems: [] });
  });

  it('lists each other scheme once, and keeps every v1 in order', () => {
    const other = 'b'.repeat(64);
    expect(parseSignatureHeader(`t=9,v0=a,v1=${HEX},v0=b,v1=${other}`)).toEqual({ timestamp: '9', signatures: [HEX, other], otherSchemes: ['v0'], unusable: [], problems: [] });
  });

  it('a v1 of 64 hex digits plus anything is unusable; without a usable one that is the only problem named', () => {
    expect(parseSignatureHeader(`t=1,v1=${HEX}0`)).toEqual({ timestamp: '1', signatures: [], otherSchemes: [], unusable: [`${HEX}0`], problems: [`v1 "${HEX}0" is not 64 hex digits (65 characters)`] });
    expect(parseSignatureHeader(`t=1,v1=x${HEX}`).problems).toEqual([`v1 "x${HEX}" is not 64 hex digits (65 characters)`]);
    expect(parseSignatureHeader('t=1').problems).toEqual(['no v1 signature']);
    expect(parseSignatureHeader(`t=1,v1=zz,v1=${HEX.toUpperCase()}`)).toEqual({ timestamp: '1', signatures: [HEX.toUpperCase()], otherSchemes: [], unusable: ['zz'], problems: [] });
  });
});

describe('verifySignature', () => {
  it('without a readable t there is no time, no skew and nothing expected', () => {
    const result = verifySignature({ header: `v1=${HEX}`, payload: Buffer.from('x'), secret: SECRET, now: 100 });
    expect(result).toEqual({
      valid: false,
      reason: 'malformed_header',
      header: { timestamp: null, signatures: [HEX], otherSchemes: [], unusable: [], problems: ['t is missing'] },
      timestamp: null,
      skewSeconds: null,
      toleranceSeconds: 300,
      expected: null,
      signatureMatches: false,
    });
  });

  it('t is read as written: skew is t minus now, and the signature covers the digits as sent', () => {
    const result = verifySignature({ header: `t=0100,v1=${hmac('0100.x')}`, payload: Buffer.from('x'), secret: SECRET, now: 130, toleranceSeconds: 30 });
    expect([result.valid, result.timestamp, result.skewSeconds, result.expected]).toEqual([true, 100, -30, hmac('0100.x')]);
  });
});

describe('matchesAny', () => {
  it('a candidate of another length never matches and never throws', () => {
    const expected = hmac('1.x');
    expect(matchesAny(expected, ['abcd', expected.slice(0, 62)])).toBe(false);
    expect(matchesAny(expected, ['abcd', expected])).toBe(true);
    expect(matchesAny(expected, [])).toBe(false);
  });
});
