/** The bulk ETA counts rate-limit waits: the pacer's least wait for the remaining rows. */
import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/api/pacer.js';
import { progressLine } from '../../src/features/bulk/progress.js';

describe('Pacer.leastWaitMs', () => {
  const pacerAt = (limit: number) => {
    const clock = { now: 1_000_000 };
    const pacer = new Pacer(limit, async () => undefined, () => clock.now);
    return { pacer, clock };
  };

  it('is 0 while the window has room, then waits for the oldest starts to be a minute old', async () => {
    const { pacer, clock } = pacerAt(3);
    expect(pacer.leastWaitMs(3)).toBe(0);
    await pacer.acquire(); // t = 0
    clock.now += 10_000;
    await pacer.acquire(); // t = 10 s
    clock.now += 10_000; // now t = 20 s, one slot free
    expect(pacer.leastWaitMs(1)).toBe(0);
    expect(pacer.leastWaitMs(2)).toBe(40_000); // the slot of the start at 0 s, free at 60 s
    expect(pacer.leastWaitMs(3)).toBe(50_000); // the start at 10 s, free at 70 s
    expect(pacer.leastWaitMs(4)).toBe(60_000); // the one started now (the first of these), a window later
    expect(pacer.leastWaitMs(5)).toBe(100_000); // a whole window after the 2nd
  });

  it('counts a 429 pause', async () => {
    const { pacer, clock } = pacerAt(3_000);
    pacer.pauseUntil(clock.now + 30_000);
    expect(pacer.leastWaitMs(1)).toBe(30_000);
    expect(pacer.leastWaitMs(0)).toBe(0);
  });
});

describe('progressLine', () => {
  it('ETA from the rate so far when the limit allows it', () => {
    expect(progressLine(100, 0, 400, 10_000, 0)).toBe('[██████░░░░░░░░░░░░░░░░░░]  100/400  25%  10.0 rows/s  ETA 30s');
  });

  it('ETA from the rate limit when a burst ran faster than the limit allows', () => {
    // 3,000 rows in 10 s is the burst of a fresh window; the next 3,000 cannot start before 50 s from now.
    expect(progressLine(3_000, 2, 6_000, 10_000, 50_000 + 60_000)).toBe(
      '[████████████░░░░░░░░░░░░]  3000/6000  50%  300.0 rows/s  ETA 1m50s  2 failed',
    );
  });
});
