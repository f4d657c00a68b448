/** `svc refunds ls`: the ledger, oldest first: orderId, coinPrice, currency, eventId, refundedAt. */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { Ledger, ledgerPlace, type LedgerEntry } from '../../features/refunds/ledger.js';
import { currencyName } from '../../features/refunds/refund.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';
import { ledgerOption } from './ledger-option.js';

export function declare(command: Command) {
  return ledgerOption(command)
    .description('list the ledger: orderId, coinPrice, currency, eventId, refundedAt')
    .addHelpText('after', examples('svc refunds ls', 'svc refunds ls -o jsonl | jq -r .orderId'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number | void> {
  const place = await ledgerPlace(ctx, opts.ledger);
  const ledger = new Ledger(place.path, (line) => ctx.io.info(line));
  await ledger.refresh();
  const output = await ctx.output();
  await output.list([{ items: ledger.list(), nextCursor: null }], {
    noun: `refunds in ${place.path}`,
    columns: [
      { header: 'Order ID', value: (e: LedgerEntry) => terminalSafeLine(e.orderId), id: true },
      { header: 'Coin price', value: (e: LedgerEntry) => terminalSafeLine(e.coinPrice ?? '') },
      { header: 'Currency', value: (e: LedgerEntry) => terminalSafeLine(currencyName(e.currency)) },
      { header: 'Event ID', value: (e: LedgerEntry) => terminalSafeLine(e.eventId ?? ''), id: true, priority: 2 },
      { header: 'Refunded at', value: (e: LedgerEntry) => terminalSafeLine(e.refundedAt), id: true, priority: 1 },
    ],
  });
}
