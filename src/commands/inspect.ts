/**
 * `svc inspect ID`: what happened to one link or order. The record and every feed event whose
 * `data.id` is ID, oldest first (the feed's save order), read as features/inspect.ts describes.
 */
import { defaultColumns } from '../api/resource-fields.js';
import type { SvcEvent } from '../api/types.js';
import type { ApiClient } from '../api/client.js';
import type { Context } from '../app/context.js';
import { cellText, valueAt } from '../core/field-paths.js';
import { truncate, wrapLine, type Column, type Output } from '../core/output.js';
import stringWidth from 'string-width';
import { terminalSafeLine } from '../core/sanitize.js';
import { parseSince, parseTimestamp, toTheSecond } from '../core/time.js';
import * as resolve from '../features/resolve.js';
import { findRecord, recordHistory, type Found } from '../features/inspect.js';
import { namesFor, type Names } from '../app/names.js';
import { paintStatus } from '../features/status.js';
import type { Command } from '@commander-js/extra-typings';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { examples, fieldsOption } from './declare.js';

export function declare(command: Command) {
  return command
    .argument('<id>', 'a link id, an order id or an order reference (SVC-000008)')
    .description('a link or order and its history from the event feed, oldest first')
    .option('--since <time|duration>', 'read events that occurred at or after this: 15m, 2h, 7d or an ISO time (default: the whole feed, 30 days)')
    .addOption(fieldsOption('event'))
    .addHelpText('after', examples('svc inspect <id>', 'svc inspect SVC-000008', 'svc inspect <id> --since 2d', 'svc inspect <id> -o json | jq .events[].type', 'svc inspect <id> -o csv --fields occurredAt,type,data.status'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [rawId]: ArgsOf<typeof declare>): Promise<void> {
  const sinceMicros = parseSince(opts.since, Date.now());
  const id = (await resolve.orderId(ctx, rawId, 'ID')).toLowerCase();
  const client = await ctx.client();
  const output = await ctx.output();
  const found = await findRecord(client, id, ctx.signal);
  const events = await history(ctx, client, id, sinceMicros);
  // Names of the brand and campaign, for a person's table only.
  const names = output.format === 'table' ? await namesFor(client, ctx.signal, { campaigns: found.kind === 'link' }) : undefined;
  await render(output, found, events, names);
}

/** This record's events from the whole feed, oldest first; a progress line on a terminal while reading. */
async function history(ctx: Context, client: ApiClient, id: string, sinceMicros: number | undefined): Promise<SvcEvent[]> {
  const progress = ctx.io.stderrIsTTY ? (line: string) => ctx.io.streams.stderr.write(`\r\x1b[2K${line}`) : undefined;
  try {
    return await recordHistory(client, id, sinceMicros, ctx.signal, progress && (({ pages, read, kept }) => progress(`Reading the event feed: ${pages} page${pages === 1 ? '' : 's'}, ${read} events, ${kept} about this record`)));
  } finally {
    progress?.('');
  }
}

async function render(output: Output, found: Found, events: SvcEvent[], names: Names | undefined): Promise<void> {
  const chosen = events.map((event) => output.select(event));
  switch (output.format) {
    case 'json':
      return output.io.write(`${output.json({ kind: found.kind, record: found.record, events: chosen }, 2)}\n`);
    case 'jsonl':
      return output.io.write(chosen.map((event) => `${output.json(event)}\n`).join(''));
    case 'csv': {
      const csv = output.csv(output.fields ?? defaultColumns('event'));
      await csv.items(events);
      return csv.end();
    }
    case 'table':
      return output.io.write(await table(output, found, events, names));
  }
}

async function table(output: Output, found: Found, events: SvcEvent[], names: Names | undefined): Promise<string> {
  const { chalk } = output;
  const record = found.record as unknown as Record<string, unknown>;
  const rows: [string, unknown][] =
    found.kind === 'link'
      ? [
          ['Status', record.status],
          ['Brand', named(names?.brand(record.brandId), record.brandId)],
          ['Campaign', record.campaignId ? named(names?.campaign(record.campaignId), record.campaignId) : record.selection],
          ['Created', record.createdAt],
          ['Updated', record.updatedAt],
        ]
      : [
          ['Reference', record.reference],
          ['Status', record.status],
          ['Gift', record.productName],
          ['Price', [cellText(record.coinPrice), cellText(valueAt(record, 'currency.symbol')) || cellText(valueAt(record, 'currency.name'))].filter(Boolean).join(' ')],
          ['Brand', named(names?.brand(record.brandId), record.brandId)],
          ['Created', record.createdAt],
          ['Updated', record.updatedAt],
        ];
  const width = output.io.terminalWidth();
  const room = width - 13;
  const lines = [
    `${chalk.bold(found.kind === 'link' ? 'Personal link' : 'Store order')} ${terminalSafeLine(record.id)}`,
    ...rows.map(([label, value]) => {
      // A name shrinks before the id after it; other values are the record's own (ids, times, a status).
      const text = Array.isArray(value) ? `${truncate(terminalSafeLine(value[0]), Math.max(MIN_NAME, room - stringWidth(terminalSafeLine(value[1]))))}${terminalSafeLine(value[1])}` : terminalSafeLine(cellText(value));
      return `  ${chalk.bold(label.padEnd(10))} ${text}`;
    }),
    ...claimNote(found, width),
    '',
    chalk.bold(`History: ${events.length} event${events.length === 1 ? '' : 's'}`),
  ];
  if (events.length === 0) return `${lines.join('\n')}\n${chalk.dim('No events about it in the feed (events are kept 30 days).')}\n`;
  const after = new Map(events.map((event, index) => [event, index === 0 ? '' : sinceStep(events[index - 1]?.occurredAt, event?.occurredAt)]));
  const columns: Column<SvcEvent>[] = output.fields
    ? output.fieldColumns<SvcEvent>()
    : [
        // The API's whole time where it fits; to the second on a narrow terminal.
        { header: 'Time', value: (event) => (width < WIDE_TIMELINE ? toTheSecond(cellText(event?.occurredAt)) : cellText(event?.occurredAt)), id: true },
        { header: 'After', value: (event) => after.get(event) ?? '', id: true },
        { header: 'Type', value: (event) => cellText(event?.type), id: true },
        { header: 'Status', value: (event) => cellText(valueAt(event, 'data.status')), id: true, paint: (event, chalk) => paintStatus(chalk, valueAt(event, 'data.status')) },
      ];
  const safe = columns.map((column) => ({ ...column, value: (event: SvcEvent) => terminalSafeLine(cellText(column.value(event))) }));
  return `${lines.join('\n')}\n${await output.table(safe, events)}`;
}

/**
 * A claimed link placed an order that no key can see (it belongs to no key): said where the order
 * would be looked for, so nobody concludes svc lost it. Wrapped to the terminal.
 */
function claimNote(found: Found, width: number): string[] {
  if (found.kind !== 'link' || found.record.status !== 'CLAIMED') return [];
  const text = `The player's claim placed an order. Orders placed by a claim belong to no key, so the API does not show them to API keys (not in svc orders, inspect or the event feed); the operator's team sees the order in the workspace.`;
  return wrapLine(text, Math.max(20, width - 13)).map((line, index) => `  ${(index === 0 ? 'Order' : '').padEnd(10)} ${line}`);
}

/** A name and ` (id)` after it, or the id alone when the name is unknown. */
function named(name: string | undefined, id: unknown): unknown {
  return name ? [name, ` (${cellText(id)})`] : id;
}

/** The narrowest a name gets beside its id. */
const MIN_NAME = 8;

/** Columns a timeline needs with the API's whole timestamps (time, after, type, status, borders). */
const WIDE_TIMELINE = 27 + 8 + 23 + 10 + 5 * 3 + 1;

/** The time from one step to the next, as a person reads it: `+2m 10s`, `+3h 5m`, `+1d 2h`, `+350ms`; empty when a time is unreadable. */
export function sinceStep(from: unknown, to: unknown): string {
  const start = parseTimestamp(from);
  const end = parseTimestamp(to);
  if (start === undefined || end === undefined) return '';
  const micros = end - start;
  const sign = micros < 0 ? '-' : '+';
  let rest = Math.abs(micros);
  if (rest < 1_000_000) return `${sign}${Math.round(rest / 1000)}ms`;
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const amount = Math.floor(rest / (size * 1_000_000));
    rest -= amount * size * 1_000_000;
    if (amount > 0 || parts.length > 0) parts.push(`${amount}${unit}`);
  }
  // The two largest units say enough: `+1d 2h`, not `+1d 2h 3m 4s`.
  return `${sign}${parts.slice(0, 2).filter((part, index) => index === 0 || !part.startsWith('0')).join(' ')}`;
}
