/**
 * The webhook signing scheme (openapi/openapi.yaml, info and Svc-Signature): `Svc-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by the secret's text bytes.
 * Signing, strict header parsing and verification live here; diagnosis of failures is in
 * `signature-diagnose.ts`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Hex HMAC-SHA256 over `message`, for any key bytes (diagnosis also tries keys other than the secret's text). */
export function hmacHex(key: Buffer, ...message: (string | Buffer)[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of message) hmac.update(part);
  return hmac.digest('hex');
}

/** The v1 signature of the webhook scheme: hex HMAC-SHA256 of `<t>.<raw body>`, keyed by the secret's text bytes. */
export function computeSignature(secret: string, timestamp: number | string, payload: string | Buffer): string {
  return hmacHex(Buffer.from(secret, 'utf8'), `${timestamp}.`, payload);
}

/** A complete `Svc-Signature` header value for one payload. */
export function signatureHeader(secret: string, timestamp: number, payload: string | Buffer): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, payload)}`;
}

export interface ParsedSignatureHeader {
  /** `t` exactly as written (digits); the signed message uses this text */
  timestamp: string | null;
  /** every well-formed `v1` value, in header order */
  signatures: string[];
  /** names of other schemes present (such as `v0`); they are ignored */
  otherSchemes: string[];
  /** `v1` values that are not 64 hex digits, passed over beside a well-formed one */
  unusable: string[];
  /** why the header is malformed; empty when it is well-formed */
  problems: string[];
}

const DIGITS = /^\d+$/;
const V1_VALUE = /^[0-9a-f]{64}$/i;
const SCHEME_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Strict parse: comma-separated `name=value` pairs without spaces; exactly one `t` of digits; at
 * least one `v1` of 64 hex digits; other well-formed pairs are ignored, and so is a `v1` that is not
 * 64 hex digits when a well-formed one stands beside it (like any other non-matching signature).
 * Only the ends of the whole value are trimmed, as HTTP does with header values.
 */
export function parseSignatureHeader(value: string): ParsedSignatureHeader {
  const parsed: ParsedSignatureHeader = { timestamp: null, signatures: [], otherSchemes: [], unusable: [], problems: [] };
  const trimmed = value.trim();
  if (trimmed === '') {
    parsed.problems.push('the header is empty');
    return parsed;
  }
  if (/^svc-signature\s*:/i.test(trimmed)) parsed.problems.push('the value starts with the header name; pass only what follows "Svc-Signature:"');
  let timestamps = 0;
  trimmed.split(',').forEach((pair, index) => {
    const at = pair.indexOf('=');
    const name = at < 0 ? '' : pair.slice(0, at);
    const content = at < 0 ? '' : pair.slice(at + 1);
    if (at <= 0 || !SCHEME_NAME.test(name)) {
      parsed.problems.push(`pair ${index + 1} ${JSON.stringify(pair)} is not name=value`);
    } else if (name === 't') {
      timestamps++;
      if (timestamps > 1) parsed.problems.push('t appears more than once');
      else if (!DIGITS.test(content)) parsed.problems.push(`t ${JSON.stringify(content)} is not unix seconds (digits only)`);
      else parsed.timestamp = content;
    } else if (name === 'v1') {
      if (V1_VALUE.test(content)) parsed.signatures.push(content);
      else parsed.unusable.push(content);
    } else if (!parsed.otherSchemes.includes(name)) {
      parsed.otherSchemes.push(name);
    }
  });
  if (timestamps === 0) parsed.problems.push('t is missing');
  if (parsed.signatures.length === 0) {
    if (parsed.unusable.length === 0) parsed.problems.push('no v1 signature');
    for (const content of parsed.unusable) parsed.problems.push(`v1 ${JSON.stringify(content)} is not 64 hex digits (${content.length} characters)`);
  }
  return parsed;
}

export type InvalidReason = 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

export interface VerifyInput {
  header: string;
  payload: Buffer;
  secret: string;
  /** the receiver's clock, unix seconds */
  now: number;
  toleranceSeconds?: number;
}

export interface Verification {
  valid: boolean;
  /** the first check that failed, in the order header → timestamp → signature */
  reason: InvalidReason | null;
  header: ParsedSignatureHeader;
  /** parsed t as a number; null when unreadable */
  timestamp: number | null;
  /** t minus now, in seconds: negative when the signature is older than the clock */
  skewSeconds: number | null;
  toleranceSeconds: number;
  /** the v1 the given secret and payload produce for the header's t */
  expected: string | null;
  /** whether one of the header's v1 values equals `expected` (checked even when the time is off) */
  signatureMatches: boolean;
}

/** Verifies one delivery as the spec prescribes; never throws on bad input. */
export function verifySignature(input: VerifyInput): Verification {
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const header = parseSignatureHeader(input.header);
  const timestamp = header.timestamp === null ? null : Number(header.timestamp);
  const skewSeconds = timestamp === null ? null : timestamp - input.now;
  const expected = header.timestamp === null ? null : computeSignature(input.secret, header.timestamp, input.payload);
  const signatureMatches = expected !== null && matchesAny(expected, header.signatures);
  const reason: InvalidReason | null =
    header.problems.length > 0
      ? 'malformed_header'
      : Math.abs(skewSeconds!) > toleranceSeconds
        ? 'timestamp_outside_tolerance'
        : signatureMatches
          ? null
          : 'no_matching_signature';
  return { valid: reason === null, reason, header, timestamp, skewSeconds, toleranceSeconds, expected, signatureMatches };
}

/** Constant-time comparison of one expected hex digest against each candidate (all 64 hex digits). */
export function matchesAny(expectedHex: string, candidates: readonly string[]): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  let found = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate, 'hex');
    // Every candidate is compared, so the time taken does not reveal which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) found = true;
  }
  return found;
}
