/**
 * `svc refunds due [--from-start]`: every cancelled order of the feed, from the refund cursor, that
 * the ledger does not hold yet. JSON lines in a pipe (streamed); on a TTY a table with exact totals
 * per currency. It moves nothing: neither cursor nor ledger.
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { ExitCode, InterruptedError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { Ledger, ledgerPlace, readRefundCursor, readRefundCursorEventAt, refundCursorRefused } from '../../features/refunds/ledger.js';
import { currencyName, totalsByCurrency, type Refund } from '../../features/refunds/refund.js';
import { isRefusedStartCursor } from '../../features/events/feed.js';
import { dueRefunds } from '../../features/refunds/source.js';
import { reportGap } from '../../features/refunds/gap.js';
import { Names, namesFor } from '../../app/names.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';
import { GAP_HELP } from './gap-report.js';
import { ledgerOption } from './ledger-option.js';

export function declare(command: Command) {
  return ledgerOption(command)
    .description('list cancelled orders not yet refunded, from the refund cursor; moves nothing')
    .option('--from-start', 'read the whole feed, not from the refund cursor (the ledger still holds)')
    .addHelpText('after', `\n${GAP_HELP}\n${examples('svc refunds due', 'svc refunds due --from-start -o jsonl | jq -r .orderId')}`);
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number | void> {
  const place = await ledgerPlace(ctx, opts.ledger);
  const warn = (line: string) => ctx.io.info(line);
  const ledger = new Ledger(place.path, warn);
  await ledger.refresh();
  const after = opts.fromStart ? undefined : await readRefundCursor(place, warn);
  const client = await ctx.client();
  const output = await ctx.output();
  const array = output.format === 'json' ? output.jsonArray() : undefined;
  const forTable: Refund[] = [];
  const seen = new Set<string>();
  try {
    for await (const element of dueRefunds({ client, ledger, after, follow: false, intervalMs: 0, signal: ctx.signal, seen })) {
      if (element.kind !== 'page') continue;
      if (output.format === 'jsonl') {
        if (element.refunds.length > 0) await output.io.write(element.refunds.map((refund) => `${output.json(refund)}\n`).join(''));
      } else if (array) {
        await array.items(element.refunds);
      } else {
        forTable.push(...element.refunds);
      }
    }
  } catch (error) {
    if (error instanceof InterruptedError || ctx.signal.aborted) return ExitCode.interrupted;
    if (isRefusedStartCursor(error)) throw refundCursorRefused(ctx, place, error, { ledger: opts.ledger });
    throw error;
  } finally {
    await array?.close().catch(() => undefined);
  }
  if (output.format === 'table') {
    if (forTable.length === 0) ctx.io.info('No refunds due.');
    else await output.io.write(await dueTable(output, forTable, await namesFor(client, ctx.signal)));
  }
  const cursorEventAt = after === undefined ? undefined : await readRefundCursorEventAt(place);
  const gap = await reportGap(ctx, { client, ledger, seen, cursor: after, cursorEventAt });
  return gap.unknown.length > 0 ? ExitCode.refused : undefined;
}

/** The table a person reads: one row per refund, then one total per currency (exact decimals). */
export async function dueTable(output: Output, refunds: readonly Refund[], names: Names = new Names()): Promise<string> {
  const table = await output.table(
    [
      { header: 'Order ID', value: (r: Refund) => terminalSafeLine(r.orderId), id: true },
      { header: 'Coin price', value: (r: Refund) => terminalSafeLine(r.coinPrice ?? '?') },
      { header: 'Currency', value: (r: Refund) => terminalSafeLine(currencyName(r.currency)) },
      { header: 'Reference', value: (r: Refund) => terminalSafeLine(r.reference ?? ''), id: true, priority: 2 },
      { header: 'Brand', value: (r: Refund) => terminalSafeLine(names.brand(r.brandId) ?? r.brandId ?? ''), priority: 0 },
      { header: 'Cancelled at', value: (r: Refund) => terminalSafeLine(r.cancelledAt ?? ''), id: true, priority: 1 },
    ],
    [...refunds],
  );
  const totals = totalsByCurrency(refunds).map(
    (total) =>
      `Total ${terminalSafeLine(total.currency || '(no currency)')}: ${total.total ?? '? (a price is missing or not a decimal)'} in ${total.count} ${total.count === 1 ? 'refund' : 'refunds'}`,
  );
  return `${table}${totals.join('\n')}\n`;
}
