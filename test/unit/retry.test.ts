import { describe, expect, it } from 'vitest';
import { backoffMs, isRetryable, parseRetryAfter, retryDelayMs } from '../../src/api/retry.js';
import { Pacer } from '../../src/api/pacer.js';

describe('retry decisions', () => {
  it('retries time-outs, connection errors, 5xx, 429 and in-progress idempotent requests', () => {
    expect(isRetryable({ kind: 'timeout' })).toBe(true);
    expect(isRetryable({ kind: 'network', code: 'ECONNRESET' })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 500 })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 502 })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 429 })).toBe(true);
    expect(isRetryable({ kind: 'response', status: 409, code: 'idempotency_request_in_progress' })).toBe(true);
  });

  it('never retries other 4xx', () => {
    for (const [status, code] of [
      [400, 'invalid_request'],
      [401, 'invalid_api_key'],
      [403, 'insufficient_scope'],
      [404, 'not_found'],
      [409, 'price_changed'],
      [409, 'not_cancellable'],
      [422, 'idempotency_key_reused'],
    ] as const) {
      expect(isRetryable({ kind: 'response', status, code }), `${status} ${code}`).toBe(false);
    }
  });
});

describe('backoff', () => {
  it('grows about 1, 2, 4 s and is capped at 60 s', () => {
    const mid = () => 0.5;
    expect(backoffMs(0, mid)).toBe(1000);
    expect(backoffMs(1, mid)).toBe(2000);
    expect(backoffMs(2, mid)).toBe(4000);
    expect(backoffMs(10, mid)).toBe(60_000);
    expect(backoffMs(30, () => 1)).toBe(60_000);
  });

  it('is jittered within ±25%', () => {
    expect(backoffMs(1, () => 0)).toBe(1500);
    expect(backoffMs(1, () => 1)).toBe(2500);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('a 429 waits Retry-After, not the backoff', () => {
    const noJitter = () => 0;
    expect(retryDelayMs({ kind: 'response', status: 429, retryAfter: '7' }, 0, noJitter)).toBe(7000);
    expect(retryDelayMs({ kind: 'response', status: 429, retryAfter: null }, 1, () => 0.5)).toBe(2000);
  });

  it('an in-progress 409 waits a few seconds at least', () => {
    expect(retryDelayMs({ kind: 'response', status: 409, code: 'idempotency_request_in_progress' }, 0, () => 0.5)).toBe(2000);
  });
});

describe('pacer', () => {
  it('spaces request starts to the rate and holds everyone during a pause', async () => {
    let now = 1_000_000;
    const waits: number[] = [];
    const pacer = new Pacer(
      600,
      async (ms) => {
        waits.push(ms);
      },
      () => now,
    );
    await pacer.acquire();
    await pacer.acquire();
    await pacer.acquire();
    expect(waits).toEqual([100, 200]);
    now += 1000;
    pacer.pauseUntil(now + 5000);
    await pacer.acquire();
    expect(waits.at(-1)).toBe(5000);
  });
});
