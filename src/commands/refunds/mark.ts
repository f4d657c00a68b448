/**
 * `svc refunds mark ORDER_ID…`: records refunds made by other means, so `run` never pays them.
 * The price and currency come from the order's order.cancelled event in the feed (from the refund
 * cursor on, where due refunds are), else from the order itself; null when neither is readable.
 * An orderId already in the ledger is left as it is.
 */
import type { ApiClient } from '../../api/client.js';
import { getRewardStoreOrder } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import { ApiError, SvcError, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import * as validate from '../../api/checks.js';
import { Ledger, ledgerPlace, readRefundCursor, type LedgerEntry } from '../../features/refunds/ledger.js';
import { dueRefunds } from '../../features/refunds/source.js';
import type { Command } from 'commander';
import { dryRunOption, examples } from '../declare.js';
import { ledgerOption } from './ledger-option.js';

export interface MarkOptions {
  ledger?: string;
}

export function declare(command: Command): void {
  ledgerOption(command)
    .argument('<orderId...>', 'order ids refunded by other means')
    .description('record refunds made by other means, so run never pays them')
    .addOption(dryRunOption('print the ledger entries it would record; record nothing'))
    .addHelpText('after', examples('svc refunds mark 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11', 'svc refunds mark 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11 --dry-run'));
}

export async function run(ctx: Context, opts: MarkOptions, args: string[]): Promise<number | void> {
  if (args.length === 0) throw new UsageError('ORDER_ID: at least one order id is required');
  const orderIds = [...new Set(args.map((id) => validate.uuid(id, 'ORDER_ID').toLowerCase()))];
  const place = await ledgerPlace(ctx, opts.ledger);
  const warn = (line: string) => ctx.io.info(line);
  const ledger = new Ledger(place.path, warn);
  await ledger.refresh();
  const wanted = orderIds.filter((id) => {
    if (!ledger.has(id)) return true;
    warn(`${id}: already in the ledger; left as it is`);
    return false;
  });
  const known = await lookUp(ctx, ledger, place, wanted);
  const output = await ctx.output();
  const array = output.format === 'json' ? output.jsonArray() : undefined;
  try {
    for (const orderId of wanted) {
      const found = known.get(orderId);
      const entry: LedgerEntry = {
        orderId,
        coinPrice: found?.coinPrice ?? null,
        currency: found?.currency ?? null,
        eventId: found?.eventId ?? null,
        refundedAt: new Date().toISOString(),
      };
      // --dry-run: the entry is printed, not recorded.
      if (!ctx.options.dryRun) await ledger.append(entry);
      if (output.format === 'jsonl') await output.io.write(`${output.json(entry)}\n`);
      else if (array) await array.items([entry]);
      else await output.io.write(`${ctx.options.dryRun ? 'would mark' : 'marked'} ${orderId} as refunded${entry.coinPrice === null ? ' (price unknown)' : ` (${terminalSafeLine(entry.coinPrice)})`}\n`);
    }
  } finally {
    await array?.close();
    await ledger.close();
  }
  if (ctx.options.dryRun) ctx.io.info(`dry run: nothing was recorded in ${terminalSafeLine(place.path)}`);
}

type Known = Map<string, { coinPrice: string | null; currency: unknown; eventId: string | null }>;

/** Price, currency and event of each order, as far as the feed and the API tell; never fails the mark. */
async function lookUp(ctx: Context, ledger: Ledger, place: Awaited<ReturnType<typeof ledgerPlace>>, orderIds: string[]): Promise<Known> {
  const known: Known = new Map();
  if (orderIds.length === 0) return known;
  let client: ApiClient;
  try {
    client = await ctx.client();
    const after = await readRefundCursor(place, () => undefined);
    for await (const element of dueRefunds({ client, ledger, after, follow: false, intervalMs: 0, signal: ctx.signal })) {
      if (element.kind !== 'page') continue;
      for (const refund of element.refunds) {
        const id = refund.orderId.toLowerCase();
        if (orderIds.includes(id) && !known.has(id)) known.set(id, { coinPrice: refund.coinPrice, currency: refund.currency, eventId: refund.eventId });
      }
    }
    for (const id of orderIds.filter((orderId) => !known.has(orderId))) {
      try {
        const order: { coinPrice?: unknown; currency?: unknown } | null = (await getRewardStoreOrder(client, id, { signal: ctx.signal })).body;
        known.set(id, { coinPrice: typeof order?.coinPrice === 'string' ? order.coinPrice : null, currency: order?.currency ?? null, eventId: null });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof SvcError)) throw error;
    ctx.io.info(`note: could not look up prices (${error.message}); recording what is known`);
  }
  return known;
}
