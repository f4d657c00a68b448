/** `events stats` says its window and bucket in words ("per hour, 2026-11-21 19:00–23:00 UTC"). */
import { describe, expect, it } from 'vitest';
import { durationWords, windowWords } from '../../src/features/events/chart.js';

describe('events stats header words', () => {
  it('names the bucket in words', () => {
    const s = 1_000_000;
    expect([1, 60, 300, 3_600, 7_200, 86_400, 172_800, 90].map((seconds) => durationWords(seconds * s))).toEqual(['second', 'minute', '5 minutes', 'hour', '2 hours', 'day', '2 days', '90 seconds']);
  });

  it('names the window to the minute, with one date when it stays within a day', () => {
    const at = (iso: string) => Date.parse(iso) * 1000;
    expect(windowWords(at('2026-11-21T19:00:00Z'), at('2026-11-21T23:00:00Z'))).toBe('2026-11-21 19:00–23:00 UTC');
    expect(windowWords(at('2026-11-20T19:00:00Z'), at('2026-11-21T19:00:00Z'))).toBe('2026-11-20 19:00 – 2026-11-21 19:00 UTC');
  });
});
