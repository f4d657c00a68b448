import { describe, expect, it } from 'vitest';
import { parseDuration, parseSince, parseTimestamp } from '../../src/core/time.js';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const micros = (iso: string) => Date.parse(iso) * 1000;

describe('--since and timestamps', () => {
  it('reads durations in s, m, h, d, w, combined', () => {
    expect(['15m', '2h', '7d', '1w', '90s', '1h30m', '2H'].map(parseDuration)).toEqual([900, 7200, 604_800, 604_800, 90, 5400, 7200]);
    expect(['', '15', 'm', '1.5h', '-2h', '2 h', '1y'].map(parseDuration)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('reads the API timestamps to the microsecond', () => {
    expect(parseTimestamp('2026-11-21T10:00:00.123456Z')).toBe(micros('2026-11-21T10:00:00.123Z') + 456);
    expect(parseTimestamp('2026-11-21T10:00:00.123457Z')! - parseTimestamp('2026-11-21T10:00:00.123456Z')!).toBe(1);
    expect(parseTimestamp('2026-11-21T12:00:00+02:00')).toBe(micros('2026-11-21T10:00:00Z'));
    expect(parseTimestamp('2026-11-21')).toBe(micros('2026-11-21T00:00:00Z'));
    expect([parseTimestamp('2026-11-21T10:00:00'), parseTimestamp('yesterday'), parseTimestamp(42), parseTimestamp('2026-13-45T10:00:00Z')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('--since is a duration back from now or an ISO time; anything else is a usage error', () => {
    expect(parseSince('15m', NOW)).toBe(micros('2026-11-21T11:45:00Z'));
    expect(parseSince('7d', NOW)).toBe(micros('2026-11-14T12:00:00Z'));
    expect(parseSince('2026-11-20T08:30:00Z', NOW)).toBe(micros('2026-11-20T08:30:00Z'));
    expect(parseSince(undefined, NOW)).toBeUndefined();
    expect(() => parseSince('last week', NOW)).toThrow('--since: expected a duration such as 15m, 2h or 7d, or an ISO time such as 2026-11-21T10:00:00Z, got "last week"');
    expect(() => parseSince('2026-11-21T10:00:00', NOW)).toThrow(/--since/);
  });
});
