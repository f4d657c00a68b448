const WINDOW_MS = 60_000;
/** Past this many clients, those idle for a whole minute are forgotten (memory stays bounded). */
const PRUNE_ABOVE = 1024;

/**
 * The times of one client's recent successes, oldest first, in a ring that grows on demand up to
 * the limit (a client making few requests costs little).
 */
class SuccessLog {
  private times = new Float64Array(8);
  private head = 0;
  count = 0;

  oldest(): number {
    return this.times[this.head];
  }

  newest(): number {
    return this.times[(this.head + this.count - 1) % this.times.length];
  }

  dropOldest(): void {
    this.head = (this.head + 1) % this.times.length;
    this.count--;
  }

  add(time: number, capacity: number): void {
    if (this.count === this.times.length) {
      const grown = new Float64Array(Math.min(capacity, this.times.length * 2));
      for (let i = 0; i < this.count; i++) grown[i] = this.times[(this.head + i) % this.times.length];
      this.times = grown;
      this.head = 0;
    }
    this.times[(this.head + this.count) % this.times.length] = time;
    this.count++;
  }
}

/**
 * The spec's limit as written, per client: no more than `perMinute` requests succeed within any 60 s
 * (a sliding log of the last `perMinute` successes, not a bucket that refills). A request is let
 * through when fewer than `perMinute` succeeded in the minute before it; a refused one is told the
 * whole seconds until the oldest of those leaves the minute, when the next one will succeed.
 * Refusals are not counted. O(1) amortised per request; memory at most `perMinute` times per
 * client, and clients idle for a minute are forgotten.
 *
 * Real time on purpose (injectable for tests): clients pace themselves against real clocks, so the
 * virtual clock does not move the limit.
 */
export class RateLimiter {
  private readonly clients = new Map<string, SuccessLog>();
  private pruneAbove = PRUNE_ABOVE;

  constructor(
    private perMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  setLimit(perMinute: number): void {
    this.perMinute = perMinute;
    this.clients.clear();
  }

  get limit(): number {
    return this.perMinute;
  }

  /** How many clients are remembered (for tests of the memory bound). */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Counts one request; returns 0 when allowed, else the whole seconds to wait (at least 1). */
  take(client: string): number {
    const now = this.now();
    let log = this.clients.get(client);
    if (log === undefined) {
      if (this.clients.size >= this.pruneAbove) this.prune(now);
      log = new SuccessLog();
      this.clients.set(client, log);
    }
    while (log.count > 0 && log.oldest() <= now - WINDOW_MS) log.dropOldest();
    if (log.count < this.perMinute) {
      log.add(now, this.perMinute);
      return 0;
    }
    return Math.max(1, Math.ceil((log.oldest() + WINDOW_MS - now) / 1000));
  }

  /** Forgets clients with no success in the last minute; runs once per PRUNE_ABOVE new clients at most. */
  private prune(now: number): void {
    for (const [client, log] of this.clients) {
      if (log.count === 0 || log.newest() <= now - WINDOW_MS) this.clients.delete(client);
    }
    // Those active this minute stay; the next pass comes after PRUNE_ABOVE more new clients.
    this.pruneAbove = this.clients.size + PRUNE_ABOVE;
  }
}
