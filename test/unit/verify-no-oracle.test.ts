import { describe, expect, it } from 'vitest';
import { toReport } from '../../src/features/verify-signature.js';
import { diagnose } from '../../src/core/signature-diagnose.js';
import { computeSignature, verifySignature } from '../../src/core/signature.js';

const SECRET = 'd'.repeat(64);
const BODY = Buffer.from('{"id":"evt_1","type":"order.sent"}');
const T = 1_763_719_200;

describe('verify-signature is not a signing oracle', () => {
  it.each([
    ['a wrong signature', `t=${T},v1=${'0'.repeat(64)}`],
    ['a right signature for another time', `t=${T - 42},v1=${computeSignature(SECRET, T, BODY)}`],
    ['a re-serialised body', `t=${T},v1=${computeSignature(SECRET, T, JSON.stringify(JSON.parse(BODY.toString()), null, 2))}`],
  ])('for %s the report names the cause but never the signature it expected, nor a prefix of it', (_name, header) => {
    const verification = verifySignature({ header, payload: BODY, secret: SECRET, now: T });
    const causes = diagnose({ verification, payload: BODY, secret: SECRET });
    const report = toReport(verification, causes, T, 'SVC_WEBHOOK_SECRET');
    expect(report.valid).toBe(false);
    expect(report.expected).toBeNull();
    const text = JSON.stringify(report);
    const expected = computeSignature(SECRET, verification.header.timestamp ?? T, BODY);
    expect(text).not.toContain(expected.slice(0, 8));
  });

  it('a matching signature is shown as it is (it is already in the header)', () => {
    const good = computeSignature(SECRET, T, BODY);
    const report = toReport(verifySignature({ header: `t=${T},v1=${good}`, payload: BODY, secret: SECRET, now: T }), [], T, 'profile p');
    expect([report.valid, report.expected]).toEqual([true, good]);
  });
});
