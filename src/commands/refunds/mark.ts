/**
 * `svc refunds mark ORDER_ID…`: records refunds made by other means, so `run` never pays them.
 * Each id must be an order of this key whose status is CANCELLED (svc reads it); otherwise nothing
 * at all is recorded (exit 1, naming each id refused), unless `--force`.
 * The price and currency come from the order's order.cancelled event in the feed (from the refund
 * cursor on, where due refunds are), else from the order itself; null when neither is readable.
 * An orderId already in the ledger is left as it is.
 */
import type { ApiClient } from '../../api/client.js';
import { getRewardStoreOrder } from '../../api/resources.js';
import type { RewardStoreOrder } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { ApiError, FailureError, SvcError, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import * as validate from '../../api/checks.js';
import { Ledger, ledgerPlace, readRefundCursor, type LedgerEntry } from '../../features/refunds/ledger.js';
import { dueRefunds } from '../../features/refunds/source.js';
import type { Command } from '@commander-js/extra-typings';
import { dryRunOption, examples } from '../declare.js';
import { ledgerOption } from './ledger-option.js';

export function declare(command: Command) {
  return ledgerOption(command)
    .argument('<orderId...>', 'order ids refunded by other means')
    .description('record refunds made by other means, so run never pays them; each must be a CANCELLED order of this key')
    .option('--force', 'record the ids even when they are not cancelled orders of this key')
    .addOption(dryRunOption('print the ledger entries it would record; record nothing'))
    .addHelpText(
      'after',
      examples(
        'svc refunds mark 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11',
        'svc refunds mark --force 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11   # refunded for another reason',
        'svc refunds mark 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11 --dry-run',
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [args]: ArgsOf<typeof declare>): Promise<number | void> {
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
  const orders = await checkOrders(ctx, wanted, Boolean(opts.force));
  const known = await lookUp(ctx, ledger, place, wanted, orders);
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
type Orders = Map<string, Partial<RewardStoreOrder>>;

/**
 * Reads each order (GET /reward-store-orders/{id}): it must be this key's and CANCELLED. Any refusal
 * ends the mark before anything is recorded (exit 1, each id named); `--force` notes it and goes on.
 * Returns the orders read, for their price.
 */
async function checkOrders(ctx: Context, orderIds: string[], force: boolean): Promise<Orders> {
  const orders: Orders = new Map();
  if (orderIds.length === 0) return orders;
  const client = await ctx.client();
  const refused: string[] = [];
  for (const id of orderIds) {
    let order: Partial<RewardStoreOrder> | undefined;
    try {
      order = ((await getRewardStoreOrder(client, id, { signal: ctx.signal })).body as Partial<RewardStoreOrder> | null) ?? {};
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) {
        if (!force || ctx.signal.aborted || !(error instanceof SvcError)) throw error;
        ctx.io.info(`note: ${id}: could not read the order (${terminalSafeLine(error.message)}); recording it as --force asks`);
        continue;
      }
    }
    if (order === undefined) refused.push(`${id} is not an order of this key`);
    // An answer about another order (or none named) says nothing about this one.
    else if (typeof order.id !== 'string' || order.id.toLowerCase() !== id) {
      refused.push(`${id}: the service answered with ${typeof order.id === 'string' ? `another order (${terminalSafeLine(order.id)})` : 'no order id'}`);
    } else {
      orders.set(id, order);
      if (order.status !== 'CANCELLED') refused.push(`${id} is ${terminalSafeLine(typeof order.status === 'string' ? order.status : 'of no known status')}, not CANCELLED`);
    }
  }
  if (refused.length === 0) return orders;
  if (force) {
    for (const line of refused) ctx.io.info(`note: ${line}; recording it as --force asks`);
    return orders;
  }
  throw new FailureError(
    `nothing was recorded: ${refused.join('; ')}`,
    'not_refundable',
    'only cancelled orders of this key are refunded; to record a refund made for another reason anyway: svc refunds mark --force ORDER_ID…',
  );
}

/** Price, currency and event of each order, as far as the feed and the API tell; never fails the mark. */
async function lookUp(ctx: Context, ledger: Ledger, place: Awaited<ReturnType<typeof ledgerPlace>>, orderIds: string[], orders: Orders): Promise<Known> {
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
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof SvcError)) throw error;
    ctx.io.info(`note: could not look up prices (${terminalSafeLine(error.message)}); recording what is known`);
  }
  // Not in the feed from the refund cursor on: the order's own price, as read.
  for (const id of orderIds.filter((orderId) => !known.has(orderId))) {
    const order = orders.get(id);
    if (order) known.set(id, { coinPrice: typeof order.coinPrice === 'string' ? order.coinPrice : null, currency: order.currency ?? null, eventId: null });
  }
  return known;
}
