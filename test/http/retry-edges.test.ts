/** Edges of the retry policy: blank and past Retry-After values, jitter on a 429, waits after failures without an answer. */
import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, IN_PROGRESS_MIN_MS, isRetryable, parseRetryAfter, retryDelayMs } from '../../src/api/retry.js';

describe('Retry-After', () => {
  it('blank is absent; surrounding spaces are ignored; a past date means now', () => {
    expect([parseRetryAfter(''), parseRetryAfter('   '), parseRetryAfter(null)]).toEqual([undefined, undefined, undefined]);
    expect(parseRetryAfter(' 2 ')).toBe(2000);
    expect(parseRetryAfter('1.25')).toBe(1250);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:00 GMT', Date.parse('Sat, 21 Nov 2026 10:00:30 GMT'))).toBe(0);
  });

  it('a 429 adds up to 100 ms of jitter to the wait it asks for', () => {
    const tooMany = { kind: 'response' as const, status: 429, retryAfter: '2' };
    expect(retryDelayMs(tooMany, 0, () => 0)).toBe(2000);
    expect(retryDelayMs(tooMany, 3, () => 1)).toBe(2100);
    expect(retryDelayMs({ ...tooMany, retryAfter: 'later' }, 2, () => 0.5)).toBe(4000);
  });
});

describe('waits after failures', () => {
  it('time-outs, network errors and 5xx wait the back-off for their retry number', () => {
    expect(retryDelayMs({ kind: 'timeout' }, 1, () => 0.5)).toBe(2 * BACKOFF_BASE_MS);
    expect(retryDelayMs({ kind: 'network', code: 'ECONNRESET' }, 2, () => 0.5)).toBe(4 * BACKOFF_BASE_MS);
    expect(retryDelayMs({ kind: 'response', status: 503 }, 0, () => 0)).toBe(750);
    expect(retryDelayMs({ kind: 'response', status: 503 }, 40, () => 0.5)).toBe(BACKOFF_CAP_MS);
  });

  it('an in-progress 409 waits the longer of a few seconds and the back-off', () => {
    const inProgress = { kind: 'response' as const, status: 409, code: 'idempotency_request_in_progress' };
    expect(retryDelayMs(inProgress, 0, () => 0)).toBe(IN_PROGRESS_MIN_MS);
    expect(retryDelayMs(inProgress, 2, () => 0.5)).toBe(4000);
  });

  it('the boundaries of what is retried', () => {
    expect(isRetryable({ kind: 'response', status: 499 })).toBe(false);
    expect(isRetryable({ kind: 'response', status: 500 })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 599 })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 409, code: 'conflict' })).toBe(false);
    expect(isRetryable({ kind: 'response', status: 409 })).toBe(false);
    expect(isRetryable({ kind: 'network', code: 'UND_ERR_SOCKET' })).toBe(true);
    expect(isRetryable({ kind: 'network', code: 'UND_ERR_INVALID_HEADER' })).toBe(false);
  });
});

describe('Retry-After that is neither seconds nor a date', () => {
  it('is read only when it is all digits', () => {
    expect(parseRetryAfter('12')).toBe(12_000);
    expect(parseRetryAfter('3s')).toBeUndefined();
    expect(parseRetryAfter('x3')).toBeUndefined();
  });

  it('only a 409 is an in-progress idempotent request', () => {
    expect(isRetryable({ kind: 'response', status: 422, code: 'idempotency_request_in_progress' })).toBe(false);
  });
});
