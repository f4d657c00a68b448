/**
 * The counting of `svc events stats` (and the assistant's `events_stats` tool): how many feed events
 * of each type occurred in each time bucket. Reads the whole kept feed through the shared feed
 * reader, page by page, keeping counts only (memory grows with types × buckets, never with events).
 */
import type { ApiClient } from '../../api/client.js';
import { API_LIMITS } from '../../api/types.js';
import { UsageError } from '../../core/errors.js';
import { formatMicros, parseDuration, parseSince, parseTimestamp } from '../../core/time.js';
import { feed } from './feed.js';
import { eventFilter } from './select.js';

export interface Stats {
  sinceMicros: number;
  bucketMicros: number;
  /** the bucket as the user gave it (`1h`), for the header */
  bucketLabel: string;
  /** bucket numbers: epoch microseconds / bucketMicros, first and last inclusive */
  firstBucket: number;
  lastBucket: number;
  types: string[];
  count(type: string, bucket: number): number;
}

/** The checked range and buckets of a count. */
export interface StatsPlan {
  sinceMicros: number;
  bucketMicros: number;
  bucketLabel: string;
  firstBucket: number;
  /** the bucket of now */
  lastBucket: number;
}

export interface StatsRequest {
  client: ApiClient;
  plan: StatsPlan;
  types?: string[];
  brandId?: string;
  signal: AbortSignal;
  /** after each page: pages and events read so far */
  onPage?: (pages: number, read: number) => void;
}

/** More buckets than this is a mistake (`--bucket 1s` over a month), refused before any request. */
const MAX_BUCKETS = 10_000;
/** Distinct types kept apart; a feed with more (a hostile one) counts the rest under OTHER. */
const MAX_TYPES = 200;
const OTHER = '(other types)';

/**
 * Checks the bucket (1m, 5m, 1h, 1d; default 1h) and the range (since: 15m, 2h, 7d or an ISO time;
 * default 24h): a UsageError naming --bucket before any request.
 */
export function planStats(since: string | undefined, bucket: string | undefined, nowMs: number): StatsPlan {
  const bucketLabel = bucket ?? '1h';
  const bucketSeconds = parseDuration(bucketLabel);
  if (bucketSeconds === undefined || bucketSeconds < 1) {
    throw new UsageError(`--bucket: expected a duration such as 5m, 1h or 1d, got ${JSON.stringify(bucket)}`);
  }
  const sinceMicros = parseSince(since ?? '24h', nowMs)!;
  const bucketMicros = bucketSeconds * 1_000_000;
  // Buckets line up with the clock (whole hours for 1h, midnight UTC for 1d), so times read well.
  const firstBucket = Math.floor(sinceMicros / bucketMicros);
  const lastBucket = Math.floor((nowMs * 1000) / bucketMicros);
  if (lastBucket - firstBucket + 1 > MAX_BUCKETS) {
    throw new UsageError(`--bucket: ${bucketLabel} over ${since ?? '24h'} makes more than ${MAX_BUCKETS} buckets; choose a larger bucket or a shorter --since`);
  }
  return { sinceMicros, bucketMicros, bucketLabel, firstBucket, lastBucket };
}

/** Counts the feed's events of the plan's range, by type and bucket. */
export async function countEvents(request: StatsRequest): Promise<Stats> {
  const { sinceMicros, bucketMicros, bucketLabel, firstBucket } = request.plan;
  const shows = eventFilter({ types: request.types, brandId: request.brandId });

  const counts = new Map<string, Map<number, number>>();
  let lastBucket = request.plan.lastBucket;
  let read = 0;
  let pageCount = 0;
  for await (const element of feed({ client: request.client, limit: API_LIMITS.pageSizeMax, follow: false, intervalMs: 0, signal: request.signal })) {
    if (element.kind !== 'page') continue;
    pageCount++;
    for (const { event } of element.events) {
      read++;
      const at = parseTimestamp(event?.occurredAt);
      if (at === undefined || at < sinceMicros || !shows(event)) continue;
      const bucket = Math.floor(at / bucketMicros);
      // A sandbox's clock may run ahead of this one: its newest events still count.
      if (bucket > lastBucket && bucket - firstBucket < MAX_BUCKETS) lastBucket = bucket;
      if (bucket > lastBucket) continue;
      const type = typeof event?.type === 'string' && event.type !== '' ? event.type : '(no type)';
      const key = counts.has(type) || counts.size < MAX_TYPES ? type : OTHER;
      let row = counts.get(key);
      if (!row) counts.set(key, (row = new Map()));
      row.set(bucket, (row.get(bucket) ?? 0) + 1);
    }
    request.onPage?.(pageCount, read);
  }
  return {
    sinceMicros,
    bucketMicros,
    bucketLabel,
    firstBucket,
    lastBucket,
    types: [...counts.keys()].sort(),
    count: (type, bucket) => counts.get(type)?.get(bucket) ?? 0,
  };
}

/** One row per bucket and type, oldest bucket first, every bucket present (zeros too), a bucket at a time. */
export function* statsRows(stats: Stats): Generator<{ bucketStart: string; type: string; count: number }[]> {
  for (let bucket = stats.firstBucket; bucket <= stats.lastBucket; bucket++) {
    const bucketStart = formatMicros(bucket * stats.bucketMicros);
    yield stats.types.map((type) => ({ bucketStart, type, count: stats.count(type, bucket) }));
  }
}
