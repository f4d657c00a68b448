/**
 * `svc events stats`: how many feed events of each type occurred in each time bucket — the picture
 * an incident needs ("did cancellations spike at 14:05?"). Reads the whole kept feed through the
 * shared feed reader, page by page, keeping counts only (memory grows with types × buckets, never
 * with events). A terminal gets a chart (chart.ts); a pipe gets JSON lines
 * `{"bucketStart", "type", "count"}`, one per bucket and type, oldest first (csv and json too).
 */
import type { Command } from '@commander-js/extra-typings';
import * as validate from '../../api/checks.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { UsageError } from '../../core/errors.js';
import { formatMicros, parseDuration, parseSince, parseTimestamp } from '../../core/time.js';
import { feed } from '../../features/events/feed.js';
import { eventFilter, warnUnknownTypes } from '../../features/events/select.js';
import { API_LIMITS } from '../../api/types.js';
import { collect, examples } from '../declare.js';
import { renderChart, type Stats } from './chart.js';

/** More buckets than this is a mistake (`--bucket 1s` over a month), refused before any request. */
const MAX_BUCKETS = 10_000;
/** Distinct types kept apart; a feed with more (a hostile one) counts the rest under OTHER. */
const MAX_TYPES = 200;
const OTHER = '(other types)';

export function declare(command: Command) {
  return command
    .description('count feed events per type per time bucket: a chart on a terminal, JSON lines in a pipe')
    .option('--since <time|duration>', 'count events that occurred at or after this: 15m, 2h, 7d or an ISO time (default 24h)')
    .option('--bucket <duration>', 'width of each time bucket: 1m, 5m, 1h, 1d (default 1h)')
    .option('--type <type>', 'only this type, or a prefix such as order. (repeatable)', collect)
    .option('--brand <id>', 'only events of this brand (data.brandId)')
    .addHelpText(
      'after',
      examples(
        'svc events stats',
        'svc events stats --since 2h --bucket 5m --type order.cancelled',
        'svc events stats --since 7d --bucket 1d --brand <id>',
        'svc events stats --since 2026-11-21T00:00:00Z -o csv > counts.csv',
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  const nowMs = Date.now();
  const bucketSeconds = parseDuration(opts.bucket ?? '1h');
  if (bucketSeconds === undefined || bucketSeconds < 1) {
    throw new UsageError(`--bucket: expected a duration such as 5m, 1h or 1d, got ${JSON.stringify(opts.bucket)}`);
  }
  const sinceMicros = parseSince(opts.since ?? '24h', nowMs)!;
  const bucketMicros = bucketSeconds * 1_000_000;
  // Buckets line up with the clock (whole hours for 1h, midnight UTC for 1d), so times read well.
  const firstBucket = Math.floor(sinceMicros / bucketMicros);
  if (Math.floor((nowMs * 1000) / bucketMicros) - firstBucket + 1 > MAX_BUCKETS) {
    throw new UsageError(`--bucket: ${opts.bucket} over ${opts.since ?? '24h'} makes more than ${MAX_BUCKETS} buckets; choose a larger bucket or a shorter --since`);
  }
  const brandId = validate.optionalUuid(opts.brand, '--brand');
  warnUnknownTypes(opts.type, (line) => ctx.io.info(line));
  // (Its time is checked below, where the bucket is read from it.)
  const shows = eventFilter({ types: opts.type, brandId });

  const client = await ctx.client();
  const counts = new Map<string, Map<number, number>>();
  let lastBucket = Math.floor((nowMs * 1000) / bucketMicros);
  let read = 0;
  let pageCount = 0;
  const progress = ctx.io.stderrIsTTY ? (line: string) => ctx.io.streams.stderr.write(`\r\x1b[2K${line}`) : undefined;
  try {
    for await (const element of feed({ client, limit: API_LIMITS.pageSizeMax, follow: false, intervalMs: 0, signal: ctx.signal })) {
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
      progress?.(`Reading the event feed: ${pageCount} page${pageCount === 1 ? '' : 's'}, ${read} events`);
    }
  } finally {
    progress?.('');
  }

  const stats: Stats = {
    sinceMicros,
    bucketMicros,
    bucketLabel: opts.bucket ?? '1h',
    firstBucket,
    lastBucket,
    types: [...counts.keys()].sort(),
    count: (type, bucket) => counts.get(type)?.get(bucket) ?? 0,
  };
  const output = await ctx.output();
  if (output.format === 'table') {
    if (counts.size === 0) ctx.io.info(`No events${opts.type?.length ? ' of these types' : ''} since ${formatMicros(sinceMicros)}.`);
    else await ctx.io.write(renderChart(output, stats));
    return;
  }
  // One row per bucket and type, oldest bucket first, every bucket present (zeros too), so a
  // spreadsheet or a plot gets an even time axis.
  // Written a bucket at a time, so a long range never sits in memory as text.
  const rows = function* () {
    for (let bucket = firstBucket; bucket <= lastBucket; bucket++) {
      const bucketStart = formatMicros(bucket * bucketMicros);
      yield stats.types.map((type) => ({ bucketStart, type, count: stats.count(type, bucket) }));
    }
  };
  if (output.format === 'csv') {
    const csv = output.csv(['bucketStart', 'type', 'count']);
    for (const batch of rows()) await csv.items(batch);
    return csv.end();
  }
  if (output.format === 'json') {
    const array = output.jsonArray();
    for (const batch of rows()) await array.items(batch);
    return array.close();
  }
  for (const batch of rows()) if (batch.length > 0) await ctx.io.write(batch.map((row) => `${output.json(row)}\n`).join(''));
}
