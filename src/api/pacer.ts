/**
 * Client-side pacing: request starts are spaced so one process never exceeds the key's rate.
 * A 429 pauses every caller that shares the pacer until the server's Retry-After has passed.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export class Pacer {
  private nextSlot = 0;
  private pausedUntil = 0;
  readonly intervalMs: number;

  constructor(
    ratePerMinute: number,
    private readonly sleep: Sleep,
    private readonly now: () => number = Date.now,
  ) {
    this.intervalMs = 60_000 / ratePerMinute;
  }

  /** Resolves when this caller may start its request. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot, this.pausedUntil);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await this.sleep(slot - now, signal);
  }

  /** Holds every later start until `until` (ms since epoch). */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }
}
