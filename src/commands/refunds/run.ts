/**
 * `svc refunds run --exec CMD [--follow] [--interval S]`: pays each due refund once, in feed order.
 * For each one: run CMD; on exit 0 append the orderId to the ledger and fsync it before the next;
 * on a failure stop (exit 1) with nothing recorded for it. The refund cursor moves only past pages
 * whose refunds are all in the ledger, after the ledger is on disk. One runner per ledger (a lock).
 * The only window for a repeat is a crash between CMD's exit 0 and the ledger's fsync: CMD gets the
 * orderId so it can deduplicate.
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { ExitCode, FailureError, InterruptedError, UnavailableError, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import * as validate from '../../core/validate.js';
import { execRefund } from '../../features/refunds/exec.js';
import { unpayable } from '../../features/refunds/refund.js';
import { Ledger, ledgerPlace, readRefundCursor, readRefundCursorEventAt, refundCursorRefused, writeRefundCursor, type LedgerEntry } from '../../features/refunds/ledger.js';
import { acquireLedgerLock } from '../../features/refunds/lock.js';
import { currencyName } from '../../features/refunds/refund.js';
import { isRefusedStartCursor } from '../../features/events/feed.js';
import { dueRefunds } from '../../features/refunds/source.js';
import type { Command } from '@commander-js/extra-typings';
import { dryRunOption, examples } from '../declare.js';
import { GAP_HELP, reportGap } from './gap-report.js';
import { ledgerOption } from './ledger-option.js';

export type RunOptions = OptionsOf<typeof declare>;

/**
 * --dry-run: what a run would pay now, printed as `refunds due` prints it; CMD is not run, and neither
 * the ledger, the refund cursor nor the lock file is written.
 */
async function preview(ctx: Context, opts: RunOptions): Promise<number | void> {
  if (opts.follow) throw new UsageError('--dry-run: not with --follow (a dry run looks once)');
  const { run: due } = await import('./due.js');
  const code = await due(ctx, { ledger: opts.ledger });
  ctx.io.info(`dry run: these would be paid${opts.exec ? ` by ${terminalSafeLine(opts.exec)}` : ''}; nothing was run or recorded`);
  return code;
}

/** A second runner waits this long for the first to finish before it refuses. */
const LOCK_WAIT_MS = 2_000;
const DEFAULT_INTERVAL_SECONDS = 300;

export function declare(command: Command) {
  return ledgerOption(command)
    .description('run CMD once per due refund (refund JSON on stdin, SVC_REFUND_* set) and record each in the ledger')
    .option('--exec <cmd>', 'the shell command that pays one refund; exit 0 means paid')
    .option('-f, --follow', 'keep reconciling every --interval seconds until Ctrl-C')
    .option('--interval <seconds>', 'reconcile interval with --follow (default 300)')
    .option('--from-start', 'read the feed from its oldest event, replacing the refund cursor as it goes (the ledger still holds: nothing is paid twice)')
    .addOption(dryRunOption('print the refunds it would pay (as refunds due does); run no CMD, record nothing'))
    .addHelpText(
      'after',
      `\n${GAP_HELP} With --follow the check runs once, at the first catch-up.\n` +
      examples(
        'svc refunds run --exec ./refund.sh',
        'svc refunds run --from-start --exec ./refund.sh        # the refund cursor was refused (a restarted sandbox)',
        "svc refunds run --exec 'curl -fsS -X POST https://wallet.internal/refunds -d @-' --follow",
        `svc refunds run --exec 'echo "$SVC_REFUND_ORDER_ID $SVC_REFUND_COIN_PRICE $SVC_REFUND_CURRENCY" >> paid.txt'`,
        'svc refunds run --exec ./refund.sh --dry-run             # what it would pay; nothing runs',
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number | void> {
  if (ctx.options.dryRun) return preview(ctx, opts);
  if (opts.exec === undefined || opts.exec.trim() === '') throw new UsageError('--exec: required: the command that pays one refund (it reads the refund as JSON on stdin)');
  const intervalMs = (validate.positiveNumber(opts.interval, '--interval') ?? DEFAULT_INTERVAL_SECONDS) * 1000;
  const place = await ledgerPlace(ctx, opts.ledger);
  const client = await ctx.client();
  const output = await ctx.output();
  const warn = (line: string) => ctx.io.info(line);

  const lock = await acquireLedgerLock(place.lockPath, {
    waitMs: LOCK_WAIT_MS,
    signal: ctx.signal,
    onWait: (who) => warn(`… another refunds run (${who}) holds the ledger; waiting up to ${LOCK_WAIT_MS / 1000}s`),
  });
  const ledger = new Ledger(place.path, warn);
  const array = output.format === 'json' ? output.jsonArray() : undefined;
  let paid = 0;
  let savedCursor: string | undefined;
  let after: string | undefined;
  let lastEventAt: string | undefined;
  let unknown = 0;
  let reconciled = false;
  const seen = new Set<string>();
  try {
    // Read under the lock: what an earlier runner recorded is seen before anything is paid.
    await ledger.refresh();
    // --from-start: the saved cursor is not read (it may belong to another feed); the first page replaces it.
    after = opts.fromStart ? undefined : await readRefundCursor(place, warn);
    if (opts.fromStart) warn('note: --from-start: reading the feed from its oldest event; the ledger still holds, so nothing is paid twice');
    savedCursor = after;
    const cursorEventAt = after === undefined ? undefined : await readRefundCursorEventAt(place);
    lastEventAt = cursorEventAt;
    for await (const element of dueRefunds({ client, ledger, after, follow: Boolean(opts.follow), intervalMs, signal: ctx.signal, seen })) {
      if (element.kind === 'status') {
        warn(`… ${terminalSafeLine(element.message)}`);
        continue;
      }
      if (element.kind === 'page') {
        for (const refund of element.refunds) {
          await ledger.refresh();
          if (ledger.has(refund.orderId)) continue;
          const problem = unpayable(refund);
          if (problem !== undefined) {
            throw new UnavailableError(
              `event ${terminalSafeLine(refund.eventId ?? '(no id)')} (order.cancelled of ${terminalSafeLine(refund.orderId)}): ${problem}; nothing was paid or recorded for it, and the refund cursor stays before it`,
              'invalid_response',
              undefined,
              paid > 0 ? `${paid} ${paid === 1 ? 'refund was' : 'refunds were'} paid and recorded before it` : undefined,
            );
          }
          const outcome = await execRefund(opts.exec, refund, ctx.env, ctx.io.streams.stderr);
          if (!outcome.ok) {
            if (ctx.signal.aborted) throw new InterruptedError();
            throw new FailureError(
              `--exec failed for order ${terminalSafeLine(refund.orderId)} (${outcome.how}); nothing was recorded for it and it stays due`,
              'refund_failed',
              paid > 0 ? `${paid} ${paid === 1 ? 'refund was' : 'refunds were'} paid and recorded before it` : undefined,
            );
          }
          // CMD paid: record it before anything else, even when Ctrl-C came meanwhile.
          const entry: LedgerEntry = {
            orderId: refund.orderId,
            coinPrice: refund.coinPrice,
            currency: refund.currency,
            eventId: refund.eventId,
            refundedAt: new Date().toISOString(),
          };
          await ledger.append(entry);
          paid++;
          await report(entry);
          if (ctx.signal.aborted) throw new InterruptedError();
        }
      }
      if (element.kind === 'page' && element.lastEventAt !== undefined) lastEventAt = element.lastEventAt;
      // Every refund up to this cursor is in the ledger, on disk: the cursor may pass them.
      if (element.cursor !== null && element.cursor !== savedCursor) {
        await writeRefundCursor(place, element.cursor, lastEventAt);
        savedCursor = element.cursor;
      }
      if (element.kind === 'caught-up' && !reconciled) {
        reconciled = true;
        const gap = await reportGap(ctx, { client, ledger, seen, cursor: after, cursorEventAt });
        unknown = gap.unknown.length;
        // The window is told once: what it hid is now in the reconciliation, which every run repeats.
        const keptFrom = gap.keptFrom;
        if (keptFrom !== undefined && savedCursor !== undefined && !(lastEventAt !== undefined && Date.parse(lastEventAt) >= Date.parse(keptFrom))) {
          await writeRefundCursor(place, savedCursor, (lastEventAt = keptFrom));
        }
      }
      if (element.kind === 'caught-up') {
        if (!opts.follow) warn(`${paid} ${paid === 1 ? 'refund' : 'refunds'} paid; ledger ${place.path}`);
        else if (ctx.io.stderrIsTTY) warn(`Caught up (${paid} paid so far); reconciling every ${intervalMs / 1000}s (Ctrl-C to stop).`);
      }
    }
  } catch (error) {
    if (error instanceof InterruptedError || (ctx.signal.aborted && !(error instanceof FailureError))) {
      warn(`interrupted; ${paid} ${paid === 1 ? 'refund' : 'refunds'} paid and recorded`);
      return ExitCode.interrupted;
    }
    if (isRefusedStartCursor(error)) throw refundCursorRefused(ctx, place, error, { ledger: opts.ledger, exec: opts.exec });
    throw error;
  } finally {
    await array?.close().catch(() => undefined);
    await ledger.close();
    await lock.release();
  }
  return unknown > 0 ? ExitCode.refused : undefined;

  async function report(entry: LedgerEntry): Promise<void> {
    if (output.format === 'jsonl') await output.io.write(`${output.json(entry)}\n`);
    else if (array) await array.items([entry]);
    else await output.io.write(`refunded ${terminalSafeLine(entry.orderId)}  ${terminalSafeLine(entry.coinPrice ?? '?')} ${terminalSafeLine(currencyName(entry.currency))}\n`);
  }
}
