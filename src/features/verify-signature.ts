/**
 * The verdict of `svc verify-signature` (and the assistant's `verify_signature` tool) with its
 * evidence, as `-o json` prints it: never the secret.
 */
import type { InvalidReason, Verification } from '../core/signature.js';
import type { Cause } from '../core/signature-diagnose.js';

/** What `-o json|jsonl` prints: the verdict and every piece of evidence, never the secret. */
export interface VerifyReport {
  valid: boolean;
  reason: InvalidReason | null;
  detail: string;
  cause: string | null;
  causes: Cause[];
  problems: string[];
  timestamp: number | null;
  now: number;
  skewSeconds: number | null;
  toleranceSeconds: number;
  signatures: string[];
  otherSchemes: string[];
  expected: string | null;
  signatureMatches: boolean;
  secretSource: string;
}

export function toReport(verification: Verification, causes: Cause[], now: number, secretSource: string): VerifyReport {
  return {
    valid: verification.valid,
    reason: verification.reason,
    detail: describeVerdict(verification),
    cause: causes[0]?.code ?? null,
    causes,
    problems: verification.header.problems,
    timestamp: verification.timestamp,
    now,
    skewSeconds: verification.skewSeconds,
    toleranceSeconds: verification.toleranceSeconds,
    signatures: verification.header.signatures,
    otherSchemes: verification.header.otherSchemes,
    // The signature svc computed is shown only when it is one the header already carries: printing it
    // for a failure would let anyone who can run svc (but not read the secret) sign what they like.
    expected: verification.signatureMatches ? verification.expected : null,
    signatureMatches: verification.signatureMatches,
    secretSource,
  };
}

function describeVerdict(verification: Verification): string {
  const count = verification.header.signatures.length;
  switch (verification.reason) {
    case null:
      return `valid: a v1 signature matches and t is within ±${verification.toleranceSeconds}s`;
    case 'malformed_header':
      return `malformed header: ${verification.header.problems.join('; ')}`;
    case 'timestamp_outside_tolerance':
      return `t is ${Math.abs(verification.skewSeconds!)}s ${verification.skewSeconds! < 0 ? 'in the past' : 'in the future'}, beyond the ±${verification.toleranceSeconds}s tolerance${verification.signatureMatches ? ' (the signature itself matches)' : ''}`;
    case 'no_matching_signature':
      return `none of the ${count} v1 signature${count === 1 ? '' : 's'} matches the payload and secret`;
  }
}

