/**
 * `svc refunds run --exec CMD [--follow] [--interval S]`: pays each due refund once, in feed order,
 * recording each in the ledger (features/refunds/run.ts says how nothing is paid twice).
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import * as validate from '../../core/validate.js';
import { runRefunds } from '../../features/refunds/run.js';
import type { Command } from '@commander-js/extra-typings';
import { dryRunOption, examples } from '../declare.js';
import { GAP_HELP } from './gap-report.js';
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
  return runRefunds(ctx, { exec: opts.exec, follow: Boolean(opts.follow), intervalMs, fromStart: Boolean(opts.fromStart), ledger: opts.ledger });
}
