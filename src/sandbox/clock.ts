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

  advance(seconds: number): void {
    this.offsetMicros += Math.round(seconds * 1_000_000);
  }
}

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

/** ISO 8601 in UTC with exactly six decimals, as every timestamp of the API is written (core/time.ts). */
export const formatTimestamp = formatMicros;

export function formatNullableTimestamp(micros: number | null): string | null {
  return micros === null ? null : formatTimestamp(micros);
}
