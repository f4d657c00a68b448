/**
 * `svc events tail`: prints the event feed and, with `--follow`, keeps polling. This file checks the
 * flags; `features/events/tail.ts` shows, forwards and saves the cursor (and says why it is safe).
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { API_LIMITS } from '../../api/types.js';
import { UsageError } from '../../core/errors.js';
import { resolveWebhookSecret } from '../../features/webhook-secret.js';
import { parseSince } from '../../core/time.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { forwardUrl } from '../../features/events/forward.js';
import { warnUnknownTypes } from '../../features/events/select.js';
import { tailEvents, type TailPlan } from '../../features/events/tail.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, examples, fieldsOption } from '../declare.js';

export function declare(command: Command) {
  return command
    .description('print the event feed; --follow keeps polling for new events')
    .option('-f, --follow', 'after catching up, poll for new events until Ctrl-C')
    .option('--after <cursor>', 'start after this cursor')
    .option('--resume', 'start from the cursor saved for this profile')
    .option('--from-start', 'with --resume: read the feed from its oldest event, replacing the saved cursor as it goes')
    .option('--type <type>', 'only this type, or a prefix such as order. (repeatable)', collect)
    .option('-n, --last <n>', 'print only the last N events of the catch-up')
    .option('--limit <n>', `page size, ${API_LIMITS.pageSizeMin}-${API_LIMITS.pageSizeMax}`)
    .option('--interval <seconds>', 'polling interval with --follow (default 2)')
    .option('--forward-to <url>', 'also POST each event, signed like a webhook, to this URL (https://, or http:// to loopback)')
    .option('--link <id>', 'only events of this link (data.id)')
    .option('--order <id|reference>', 'only events of this order (data.id; id or reference such as SVC-000008)')
    .option('--brand <id|name>', 'only events of this brand (data.brandId; id or name)')
    .option('--campaign <id|name>', 'only events of this campaign (data.campaignId; id or name)')
    .option('--since <time|duration>', 'only events that occurred at or after this: 15m, 2h, 7d or an ISO time')
    .option('--give-up-after <seconds>', 'with --follow: exit 5 once no poll has succeeded for this long (default: never)')
    .addOption(fieldsOption('event'))
    .addHelpText(
      'after',
      examples(
        'svc events tail --follow',
        'svc events tail --resume --type order.',
        'svc events tail --resume --from-start                  # the saved cursor was refused (a restarted sandbox)',
        'svc events tail --link <id> --since 7d',
        'svc events tail -f --give-up-after 300 --brand <id>      # for a supervisor: exit 5 after 5 minutes down',
        'svc events tail --type order.cancelled -o csv --fields occurredAt,data.id,data.coinPrice > cancelled.csv',
        'svc events tail -f --forward-to http://localhost:3000/webhooks',
        'svc events tail --type order.cancelled --jq \'"\\(.occurredAt) \\(.data.reference)"\'',
        'HTTPS_PROXY=http://proxy.corp:3128 svc events tail -f --forward-to https://hooks.example.test/svc   # proxied; loopback never is',
      ),
    );
}

type TailOptions = OptionsOf<typeof declare>;

export async function run(ctx: Context, opts: TailOptions): Promise<number | void> {
  checkStart(opts);
  return tailEvents(ctx, await tailPlan(ctx, opts));
}

function checkStart(opts: TailOptions): void {
  if (opts.after !== undefined && opts.resume) throw new UsageError('--after and --resume: give one or the other');
  if (opts.after !== undefined && opts.after.trim() === '') throw new UsageError('--after: empty cursor');
  if (opts.after !== undefined && opts.fromStart) throw new UsageError('--after and --from-start: give one or the other');
}

/** The flags, checked and resolved (names to ids, the webhook secret), as the feature takes them. */
async function tailPlan(ctx: Context, opts: TailOptions): Promise<TailPlan> {
  // Catch-up reads the biggest pages unless told otherwise: fewer round trips during an incident.
  const limit = validate.limit(opts.limit) ?? API_LIMITS.pageSizeMax;
  const last = validate.positiveInt(opts.last, '-n/--last', 0);
  const intervalMs = (validate.positiveNumber(opts.interval, '--interval') ?? 2) * 1000;
  const giveUpAfterSeconds = validate.positiveNumber(opts.giveUpAfter, '--give-up-after');
  const filters = {
    types: opts.type,
    linkId: validate.optionalUuid(opts.link, '--link'),
    sinceMicros: parseSince(opts.since, Date.now()),
    orderId: await resolve.optionalOrderId(ctx, opts.order),
    brandId: await resolve.brandId(ctx, opts.brand),
    campaignId: await resolve.campaignId(ctx, opts.campaign),
  };
  warnUnknownTypes(opts.type, (line) => ctx.io.info(line));
  const target = opts.forwardTo === undefined ? undefined : forwardUrl(opts.forwardTo);
  const secret = target === undefined ? undefined : (await resolveWebhookSecret(ctx, { stdinFlag: false })).secret;
  return {
    follow: Boolean(opts.follow), after: opts.after, resume: Boolean(opts.resume), fromStart: Boolean(opts.fromStart),
    limit, last, intervalMs, giveUpAfterMs: giveUpAfterSeconds === undefined ? undefined : giveUpAfterSeconds * 1000,
    filters, target, secret,
  };
}
