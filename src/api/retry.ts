/**
 * Retry policy (docs/output.md, Retries and idempotency), as pure functions: what is retried, and how long to wait.
 * Time-outs, connection errors, 5xx, 429 (after Retry-After) and 409 idempotency_request_in_progress
 * are retried; every other 4xx is final.
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
/** Waits for an in-progress idempotent request start at a few seconds, as the spec advises. */
export const IN_PROGRESS_MIN_MS = 2_000;

export type Outcome =
  | { kind: 'network'; code: string }
  | { kind: 'timeout' }
  | { kind: 'response'; status: number; code?: string; retryAfter?: string | null };

export function isRetryable(outcome: Outcome): boolean {
  switch (outcome.kind) {
    case 'network':
      // undici refusing the request before sending it (a bad header, say) fails the same way every
      // time; so do a certificate svc does not trust and a refused connection to this machine (nothing listens there).
      return !outcome.code.startsWith('UND_ERR_INVALID') && !isCertificateError(outcome.code) && outcome.code !== 'ECONNREFUSED_LOOPBACK';
    case 'timeout':
      return true;
    case 'response':
      return (
        outcome.status >= 500 ||
        outcome.status === 429 ||
        (outcome.status === 409 && outcome.code === 'idempotency_request_in_progress')
      );
  }
}

/** TLS failures of trust (Node's OpenSSL codes): a certificate no known CA signed, expired, or for another name. */
const CERTIFICATE_ERRORS = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function isCertificateError(code: string): boolean {
  return CERTIFICATE_ERRORS.has(code);
}

/** Growing, jittered wait for retry number `retry` (0-based): about 1, 2, 4 … s, capped at 60 s. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  // ±25% jitter so many clients that failed together do not retry together.
  return Math.min(BACKOFF_CAP_MS, Math.round(base * (0.75 + random() * 0.5)));
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** How long to wait before retry number `retry`, given what the failed attempt returned. */
export function retryDelayMs(outcome: Outcome, retry: number, random: () => number = Math.random): number {
  const backoff = backoffMs(retry, random);
  if (outcome.kind !== 'response') return backoff;
  if (outcome.status === 429) {
    const after = parseRetryAfter(outcome.retryAfter);
    // Honour the server's wait, plus a little jitter, up to the back-off cap: a service asking for an
    // hour would otherwise hold a script silently; past the cap the retries run out and svc says so.
    return after === undefined ? backoff : Math.min(after, BACKOFF_CAP_MS) + Math.round(random() * 100);
  }
  if (outcome.status === 409) return Math.max(IN_PROGRESS_MIN_MS, backoff);
  return backoff;
}
