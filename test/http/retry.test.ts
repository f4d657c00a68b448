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

  it('a Retry-After longer than the back-off cap is held to the cap', () => {
    expect(retryDelayMs({ kind: 'response', status: 429, retryAfter: '3600' }, 0, () => 0)).toBe(60_000);
  });

  it('an in-progress 409 waits a few seconds at least', () => {
    expect(retryDelayMs({ kind: 'response', status: 409, code: 'idempotency_request_in_progress' }, 0, () => 0.5)).toBe(2000);
  });
});

describe('pacer', () => {
  function fakeClock() {
    const clock = { now: 1_000_000, waits: [] as number[] };
    const sleep = async (ms: number) => {
      clock.waits.push(ms);
      clock.now += ms;
    };
    return { clock, sleep };
  }

  it('lets a burst under the limit go at once', async () => {
    const { clock, sleep } = fakeClock();
    const pacer = new Pacer(3, sleep, () => clock.now);
    for (let i = 0; i < 3; i++) await pacer.acquire();
    expect(clock.waits).toEqual([]);
  });

  it('never starts more than the limit in any 60-second window', async () => {
    const { clock, sleep } = fakeClock();
    const pacer = new Pacer(3, sleep, () => clock.now);
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await pacer.acquire();
      starts.push(clock.now);
      clock.now += 7_000;
    }
    for (let i = 3; i < starts.length; i++) expect(starts[i] - starts[i - 3]).toBeGreaterThanOrEqual(60_000);
  });

  it('holds everyone during a pause after a 429', async () => {
    const { clock, sleep } = fakeClock();
    const pacer = new Pacer(100, sleep, () => clock.now);
    pacer.pauseUntil(clock.now + 5000);
    await pacer.acquire();
    expect(clock.waits).toEqual([5000]);
  });
});

describe('requests undici refuses to send', () => {
  it('are not retried', () => {
    expect(isRetryable({ kind: 'network', code: 'UND_ERR_INVALID_ARG' })).toBe(false);
  });
});
