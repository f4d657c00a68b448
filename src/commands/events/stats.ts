/**
 * `svc events stats`: how many feed events of each type occurred in each time bucket — the picture
 * an incident needs ("did cancellations spike at 14:05?"). Reads the whole kept feed through the
 * shared feed reader (features/events/stats.ts). A terminal gets a chart (chart.ts); a pipe gets JSON lines
 * `{"bucketStart", "type", "count"}`, one per bucket and type, oldest first (csv and json too).
 */
import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf } from '../../app/verb.js';
import * as resolve from '../../features/resolve.js';
import type { Context } from '../../app/context.js';
import { formatMicros } from '../../core/time.js';
import { countEvents, planStats, statsRows, type Stats } from '../../features/events/stats.js';
import { warnUnknownTypes } from '../../features/events/select.js';
import { collect, examples } from '../declare.js';
import { renderChart } from '../../features/events/chart.js';

export function declare(command: Command) {
  return command
    .description('count feed events per type per time bucket: a chart on a terminal, JSON lines in a pipe')
    .option('--since <time|duration>', 'count events that occurred at or after this: 15m, 2h, 7d or an ISO time (default 24h)')
    .option('--bucket <duration>', 'width of each time bucket: 1m, 5m, 1h, 1d (default 1h)')
    .option('--type <type>', 'only this type, or a prefix such as order. (repeatable)', collect)
    .option('--brand <id|name>', 'only events of this brand (data.brandId; id or name)')
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
  const plan = planStats(opts.since, opts.bucket, Date.now());
  warnUnknownTypes(opts.type, (line) => ctx.io.info(line));
  const brandId = await resolve.brandId(ctx, opts.brand);
  const client = await ctx.client();
  const progress = ctx.io.stderrIsTTY ? (line: string) => ctx.io.streams.stderr.write(`\r\x1b[2K${line}`) : undefined;
  let stats: Stats;
  try {
    stats = await countEvents({
      client,
      plan,
      types: opts.type,
      brandId,
      signal: ctx.signal,
      onPage: progress && ((pages, read) => progress(`Reading the event feed: ${pages} page${pages === 1 ? '' : 's'}, ${read} events`)),
    });
  } finally {
    progress?.('');
  }

  const output = await ctx.output();
  if (output.format === 'table') {
    if (stats.types.length === 0) ctx.io.info(`No events${opts.type?.length ? ' of these types' : ''} since ${formatMicros(stats.sinceMicros)}.`);
    else await ctx.io.write(renderChart(output, stats));
    return;
  }
  // One row per bucket and type, oldest bucket first, every bucket present (zeros too), so a
  // spreadsheet or a plot gets an even time axis.
  // Written a bucket at a time, so a long range never sits in memory as text.
  if (output.format === 'csv') {
    const csv = output.csv(['bucketStart', 'type', 'count']);
    for (const batch of statsRows(stats)) await csv.items(batch);
    return csv.end();
  }
  if (output.format === 'json') {
    const array = output.jsonArray();
    for (const batch of statsRows(stats)) await array.items(batch);
    return array.close();
  }
  for (const batch of statsRows(stats)) if (batch.length > 0) await ctx.io.write(batch.map((row) => `${output.json(row)}\n`).join(''));
}
