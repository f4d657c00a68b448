/**
 * Client-side pacing: one process never starts more than `ratePerMinute` requests in any
 * 60-second window (a sliding window over the last N start times). Bursts below the limit go
 * out at once, so a page-through or a short backfill is not slowed down by the limit it keeps.
 * A 429 pauses every caller that shares the pacer until the server's Retry-After has passed.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

const WINDOW_MS = 60_000;

export class Pacer {
  /** ring buffer of the last `limit` request start times */
  private readonly starts: number[] = [];
  private oldest = 0;
  private pausedUntil = 0;

  constructor(
    readonly limit: number,
    private readonly sleep: Sleep,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when this caller may start its request, and counts the start. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.now();
      const wait = Math.max(this.pausedUntil - now, this.windowWait(now));
      if (wait <= 0) {
        this.record(now);
        return;
      }
      await this.sleep(wait, signal);
    }
  }

  /**
   * The least time (ms) until `count` more requests can all have started: waits for the window to
   * slide and for a 429's pause. A bulk run's ETA counts it, so it does not promise a burst's rate
   * for rows the limit will hold back.
   */
  leastWaitMs(count: number): number {
    if (count <= 0) return 0;
    const now = this.now();
    // The count-th next start needs the start `limit` places before it to be a window old; that one
    // is a past start (oldest first) or, past a whole window's worth, a later one of these.
    const rounds = Math.floor((count - 1) / this.limit);
    const before = this.starts.length + ((count - 1) % this.limit) - this.limit;
    const earlier = before < 0 ? now : Math.max(now, this.starts[(this.oldest + before) % this.starts.length] + WINDOW_MS);
    return Math.max(earlier + rounds * WINDOW_MS, this.pausedUntil) - now;
  }

  /** Holds every later start until `until` (ms since epoch). */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  private windowWait(now: number): number {
    if (this.starts.length < this.limit) return 0;
    return this.starts[this.oldest] + WINDOW_MS - now;
  }

  private record(now: number): void {
    if (this.starts.length < this.limit) {
      this.starts.push(now);
      return;
    }
    this.starts[this.oldest] = now;
    this.oldest = (this.oldest + 1) % this.limit;
  }
}
