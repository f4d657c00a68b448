/**
 * `svc links cancel ID --reason TEXT`: asks for confirmation on a TTY unless --yes. Cancelling a link
 * that is already cancelled succeeds (the API answers 200 and keeps the first reason); a link that
 * cannot be cancelled any more is explained in words.
 */
import type { ApiResponse } from '../../api/client.js';
import type { PersonalLink } from '../../api/types.js';
import { apiErrorCode } from '../../api/error-codes.js';
import { cancelPersonalLink } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { ApiError, FailureError } from '../../core/errors.js';
import * as validate from '../../api/checks.js';
import { LIMITS, RequestChecks, checkIdempotencyKey, lengthRule } from '../../features/fields.js';
import { showLink } from './show.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import type { Command } from '@commander-js/extra-typings';
import { dryRunOption, examples, thousands } from '../declare.js';
import { API_LIMITS } from '../../api/types.js';

/** Why a link in this status cannot be cancelled, as the person at the terminal needs to hear it. */
const NOT_CANCELLABLE: Record<string, string> = {
  CLAIMED: 'the player already claimed it (an order was placed)',
  EXPIRED: 'it expired with its campaign',
  created_elsewhere: 'it was created by your team or another API key; only the key that created a link can cancel it',
};

export function declare(command: Command) {
  return command
    .argument('<id>', 'link id')
    .description('cancel a link this key created (POST /personal-links/{id}:cancel)')
    .option('--reason <text>', `why (max ${thousands(API_LIMITS.cancelReason)}; visible only to the team)`)
    .option('--idempotency-key <key>', 'retry safely with the same key')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(dryRunOption())
    .addHelpText('after', examples('svc links cancel <id> --reason "sent to the wrong player"', 'svc links cancel <id> --reason duplicate --yes', 'svc links cancel <id> --reason duplicate --dry-run'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [id]: ArgsOf<typeof declare>): Promise<number | void> {
  const linkId = validate.uuid(id, 'ID');
  const idempotencyKey = checkIdempotencyKey(opts.idempotencyKey);
  const reason = await reasonFrom(ctx, opts.reason);
  if (ctx.io.canPrompt() && !opts.yes && !ctx.options.dryRun) {
    const confirmed = await ctx.prompter().confirm(`Cancel link ${linkId}? The player will see it as expired.`, false);
    if (!confirmed) throw new FailureError('not cancelled: you declined', 'declined');
  }
  const client = await ctx.client();
  let response: ApiResponse<PersonalLink>;
  try {
    response = await cancelPersonalLink(client, linkId, { reason }, { idempotencyKey, signal: ctx.signal });
  } catch (error) {
    throw error instanceof ApiError && apiErrorCode(error) === 'not_cancellable' ? explainNotCancellable(error) : error;
  }
  // --dry-run: the request was printed instead of sent.
  if (response.dryRun) return;
  const link = response.body;
  const output = await ctx.output();
  if (ctx.format === 'table') ctx.io.info(terminalSafeLine(`Link ${link.id} is cancelled${link.cancelledAt ? ` (since ${link.cancelledAt})` : ''}.`));
  await showLink(output, client, ctx.signal, link);
}

/** --reason, or asked for on a TTY; required either way (1 to 1,000 characters). */
async function reasonFrom(ctx: Context, given: string | undefined): Promise<string> {
  const value =
    given === undefined && ctx.io.canPrompt()
      ? await ctx.prompter().input('Reason (seen only by your team)', { required: true, validate: lengthRule(LIMITS.cancelReason) })
      : given;
  const checks = new RequestChecks(() => '--reason');
  const reason = checks.requiredText(value, 'reason', LIMITS.cancelReason);
  checks.throwIfAny();
  return reason!;
}

function explainNotCancellable(error: ApiError): ApiError {
  const { currentStatus, reason } = error.problem;
  const why = (reason && NOT_CANCELLABLE[reason]) ?? (currentStatus && NOT_CANCELLABLE[currentStatus]);
  const status = currentStatus ? ` (status ${currentStatus})` : '';
  return error.explained(why ? `cannot cancel this link: ${why}${status}` : error.message);
}
