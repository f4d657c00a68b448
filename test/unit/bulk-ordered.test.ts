import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapOrdered } from '../../src/features/bulk/ordered.js';

async function* count(n: number, onRead?: (i: number) => void) {
  for (let i = 1; i <= n; i++) {
    onRead?.(i);
    yield i;
  }
}

describe('mapOrdered', () => {
  it('yields results in input order although later items finish first', async () => {
    const out: number[] = [];
    for await (const value of mapOrdered(count(20), async (i) => (await sleep((20 - i) % 7), i * 10), { concurrency: 4, window: 8 })) out.push(value);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 10));
  });

  it('never runs more than `concurrency` at once', async () => {
    let running = 0;
    let peak = 0;
    for await (const _ of mapOrdered(
      count(30),
      async () => {
        peak = Math.max(peak, ++running);
        await sleep(2);
        running--;
      },
      { concurrency: 3, window: 12 },
    ));
    expect(peak).toBe(3);
  });

  it('streams: the first result comes out while a slow item holds only `window` rows behind it', async () => {
    let read = 0;
    const events: string[] = [];
    const source = count(1_000, (i) => (read = i));
    for await (const value of mapOrdered(source, async (i) => (i === 2 ? sleep(30).then(() => i) : i), { concurrency: 2, window: 10 })) {
      events.push(`${value}@${read}`);
      if (value === 3) break;
    }
    // Row 1 is out before row 2 (slow) finishes; reading never ran more than the window ahead.
    expect(events[0]).toBe('1@10');
    expect(read).toBeLessThanOrEqual(13);
  });

  it('passes a failure through in its turn, after the rows before it', async () => {
    const out: number[] = [];
    const run = async () => {
      for await (const value of mapOrdered(count(5), async (i) => {
        if (i === 3) throw new Error('boom');
        return i;
      }, { concurrency: 5, window: 5 })) out.push(value);
    };
    await expect(run()).rejects.toThrow('boom');
    expect(out).toEqual([1, 2]);
  });
});
