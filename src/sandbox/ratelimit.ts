/**
 * A token bucket per client on real time: it holds a minute's worth of requests and refills
 * continuously at limit/60 per second, so a client pacing itself at the limit never waits, a burst
 * of `limit` passes, and the next one is told when a token will be back.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private perMinute: number) {}

  setLimit(perMinute: number): void {
    this.perMinute = perMinute;
    this.buckets.clear();
  }

  get limit(): number {
    return this.perMinute;
  }

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait (at least 1). */
  take(client: string): number {
    const now = performance.now();
    const perMs = this.perMinute / 60_000;
    const bucket = this.buckets.get(client) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(client, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
