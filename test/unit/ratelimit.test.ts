/**
 * The sandbox's rate limit is per minute as the spec writes it: no more than N requests of one
 * client succeed within any 60 s, and Retry-After says when the next one will. Time is injected.
 */
import { describe, expect, test } from 'vitest';
import { RateLimiter } from '../../src/sandbox/ratelimit.js';

function limiterAt(perMinute: number): { limiter: RateLimiter; clock: { ms: number } } {
  const clock = { ms: 1_000_000 };
  return { limiter: new RateLimiter(perMinute, () => clock.ms), clock };
}

describe('RateLimiter', () => {
  test('a burst of N+k gets exactly N through; Retry-After counts to when the oldest leaves the minute', () => {
    const { limiter, clock } = limiterAt(5);
    const waits = Array.from({ length: 8 }, () => limiter.take('key'));
    expect(waits).toEqual([0, 0, 0, 0, 0, 60, 60, 60]);
    clock.ms += 59_001;
    expect(limiter.take('key')).toBe(1);
    clock.ms += 998;
    expect(limiter.take('key')).toBe(1);
    clock.ms += 1;
    expect([limiter.take('key'), limiter.take('key'), limiter.take('key'), limiter.take('key'), limiter.take('key'), limiter.take('key')]).toEqual([0, 0, 0, 0, 0, 60]);
  });

  test('a burst of 3,600 at a limit of 3,000, spread over 5 s, lets exactly 3,000 through', () => {
    const { limiter, clock } = limiterAt(3000);
    let allowed = 0;
    for (let i = 0; i < 3600; i++) {
      clock.ms += 5000 / 3600;
      if (limiter.take('key') === 0) allowed++;
    }
    expect(allowed).toBe(3000);
  });

  test('the window slides: requests free their places one minute after each was let through', () => {
    const { limiter, clock } = limiterAt(5);
    for (let i = 0; i < 3; i++) expect(limiter.take('key')).toBe(0); // t = 0 s
    clock.ms += 30_000;
    for (let i = 0; i < 2; i++) expect(limiter.take('key')).toBe(0); // t = 30 s
    expect(limiter.take('key')).toBe(30);
    clock.ms += 30_000; // t = 60 s: the three of t = 0 s have left the minute
    expect([limiter.take('key'), limiter.take('key'), limiter.take('key'), limiter.take('key')]).toEqual([0, 0, 0, 30]);
    clock.ms += 30_000; // t = 90 s: the two of t = 30 s have left
    expect([limiter.take('key'), limiter.take('key'), limiter.take('key')]).toEqual([0, 0, 30]);
  });

  test('no 60 s window ever holds more than N successes, whatever the arrivals; Retry-After is honest', () => {
    const limit = 50;
    const { limiter, clock } = limiterAt(limit);
    let seed = 42;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const accepted: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      // Bursts and pauses: mostly a few ms apart, sometimes many seconds.
      clock.ms += random() < 0.01 ? random() * 90_000 : random() * 20;
      const wait = limiter.take('key');
      if (wait === 0) {
        accepted.push(clock.ms);
      } else {
        expect(wait).toBeGreaterThanOrEqual(1);
        // Retry-After is the first whole second at which a request succeeds (refusals are not counted).
        const refusedAt = clock.ms;
        clock.ms = refusedAt + (wait - 1) * 1000;
        expect(limiter.take('key')).toBeGreaterThan(0);
        clock.ms = refusedAt + wait * 1000;
        expect(limiter.take('key')).toBe(0);
        accepted.push(clock.ms);
      }
    }
    for (let i = limit; i < accepted.length; i++) expect(accepted[i] - accepted[i - limit]).toBeGreaterThanOrEqual(60_000);
    expect(accepted.length).toBeGreaterThan(limit * 5);
  });

  test('Retry-After is exact: at that time the next request succeeds, a second earlier it does not', () => {
    const { limiter, clock } = limiterAt(3);
    limiter.take('key');
    clock.ms += 12_345;
    limiter.take('key');
    limiter.take('key');
    const wait = limiter.take('key');
    expect(wait).toBe(48); // the first leaves at 60 s: 47.655 s from now, rounded up
    clock.ms += (wait - 1) * 1000;
    expect(limiter.take('key')).toBe(1);
    clock.ms += 1000;
    expect(limiter.take('key')).toBe(0);
  });

  test('clients are counted apart; a new limit starts every client afresh', () => {
    const { limiter } = limiterAt(2);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 60]);
    expect([limiter.take('b'), limiter.take('b'), limiter.take('b')]).toEqual([0, 0, 60]);
    limiter.setLimit(3);
    expect(limiter.limit).toBe(3);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0, 60]);
  });

  test('memory stays bounded: clients idle for a minute are forgotten', () => {
    const { limiter, clock } = limiterAt(600);
    for (let i = 0; i < 5000; i++) {
      limiter.take(`10.0.${i >> 8}.${i & 255}`);
      clock.ms += 20;
    }
    // 5,000 clients over 100 s: only those of the last minute (and a little slack) are kept.
    expect(limiter.clientCount).toBeLessThanOrEqual(3000 + 1024);
    clock.ms += 61_000;
    limiter.take('late');
    for (let i = 0; i < 2000; i++) limiter.take(`late-${i}`);
    expect(limiter.clientCount).toBeLessThanOrEqual(2001 + 1024);
  });
});
