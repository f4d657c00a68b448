/**
 * The sandbox's virtual clock. It starts at real time and moves with it (microsecond precision, from
 * the monotonic high-resolution timer), and can be advanced so expiries, retention and webhook
 * retries can be exercised in seconds. Every read of "now" in the sandbox goes through it.
 * Times are integers: microseconds since the Unix epoch (safe as numbers until the year 2255).
 */
import { formatMicros } from '../core/time.js';

export class VirtualClock {
  private offsetMicros = 0;
  private lastTick = 0;

  /** The current virtual time in microseconds. */
  now(): number {
    return Math.floor((performance.timeOrigin + performance.now()) * 1000) + this.offsetMicros;
  }

  /**
   * A time strictly later than every earlier tick: records and events stamped with it sort in the
   * order they happened, with no ties.
   */
  tick(): number {
    const t = Math.max(this.now(), this.lastTick + 1);
    this.lastTick = t;
    return t;
  }

  /**
   * The most the clock can move forward now: until LATEST_MICROS, so that every time the sandbox
   * stamps (and expiries some days later) stays an exact integer and a valid date.
   */
  maxAdvanceSeconds(): number {
    return Math.max(0, Math.floor((LATEST_MICROS - this.now()) / 1_000_000));
  }

  /** Moves the clock forward; beyond `maxAdvanceSeconds()` is a RangeError (callers check first). */
  advance(seconds: number): void {
    if (!(seconds >= 0 && seconds <= this.maxAdvanceSeconds())) throw new RangeError(`the clock cannot move ${seconds} s`);
    this.offsetMicros += Math.round(seconds * 1_000_000);
  }
}

/** The latest time the clock can be moved to: 2200-01-01T00:00:00Z. */
export const LATEST_MICROS = Date.UTC(2200, 0, 1) * 1000;
export const LATEST_TEXT = '2200-01-01T00:00:00Z';

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

/** ISO 8601 in UTC with exactly six decimals, as every timestamp of the API is written (core/time.ts). */
export const formatTimestamp = formatMicros;

export function formatNullableTimestamp(micros: number | null): string | null {
  return micros === null ? null : formatTimestamp(micros);
}
