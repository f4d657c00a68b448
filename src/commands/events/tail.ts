/**
 * `svc events tail`: prints the event feed and, with `--follow`, keeps polling. The producer
 * (`feed.ts`) yields pages; this consumer shows and forwards each event, then saves the cursor —
 * only after the whole page is on stdout and at the receiver, so a run killed at any moment and
 * restarted with `--resume` skips nothing (it may repeat the page it was in).
 *
 * Two decisions keep that guarantee:
 * - A run that leaves events out (`--type`, `--link`, `--order`, `--brand`, `--campaign`,
 *   `--since`, `-n`) reads the saved cursor but never moves it: the cursor means "every event
 *   before it was shown", which a filtered run cannot claim.
 * - An event the receiver of `--forward-to` did not take (after bounded retries, or a 4xx) is
 *   reported beside the event and the tail goes on, but the saved cursor stays before the first such
 *   event for the rest of the run, so `--resume` delivers it again (receivers dedupe by event id).
 *   Without --follow the run then ends with exit 1.
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { isOutputClosed, stopReason } from '../../core/abort.js';
import { API_LIMITS } from '../../api/types.js';
import { ExitCode, FailureError, InterruptedError, UsageError } from '../../core/errors.js';
import { truncate } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { resolveWebhookSecret } from '../../features/webhook-secret.js';
import { parseSince } from '../../core/time.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { explainRefusedCursor } from '../../api/cursor-refusal.js';
import { defaultColumns } from '../../api/resource-fields.js';
import { feed, isRefusedStartCursor, type FeedEvent } from '../../features/events/feed.js';
import { Forwarder, forwardNote, forwardUrl } from '../../features/events/forward.js';
import { EventRenderer } from '../../features/events/render.js';
import { RingBuffer, eventFilter, warnUnknownTypes } from '../../features/events/select.js';
import { nextPageCommand } from '../../features/list.js';
import { namesFor } from '../../features/names.js';
import { profileKeyRenewal } from '../../features/profile-key.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, examples, fieldsOption } from '../declare.js';

/** A receiver gets this many tries per event (5xx, time-out, no connection); a 4xx gets one. */
const FORWARD_ATTEMPTS = 4;

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

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number | void> {
  if (opts.after !== undefined && opts.resume) throw new UsageError('--after and --resume: give one or the other');
  if (opts.after !== undefined && opts.after.trim() === '') throw new UsageError('--after: empty cursor');
  if (opts.after !== undefined && opts.fromStart) throw new UsageError('--after and --from-start: give one or the other');
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

  const client = await ctx.client();
  const profile = await ctx.profile();
  const config = await ctx.config();
  // --from-start: the saved cursor is not read (it may belong to another feed, or be damaged); it is replaced page by page.
  const saved = opts.resume && !opts.fromStart ? config.getCursor(profile.name, profile.baseUrl) : undefined;
  const after = opts.fromStart ? undefined : opts.resume ? saved : opts.after;
  if (opts.resume && !opts.fromStart && saved === undefined) ctx.io.info(`No saved cursor for profile ${profile.name}; starting from the oldest event.`);
  else if (opts.resume && opts.fromStart) ctx.io.info(`note: --from-start: reading the feed from its oldest event; the saved cursor of profile ${profile.name} is replaced as pages are shown`);

  const output = await ctx.output();
  const renderer = new EventRenderer(output, { csvColumns: defaultColumns('event'), notes: target !== undefined });
  // Names of brands and campaigns, for a person's table only (no request for JSON, JSON lines, CSV).
  if (ctx.format === 'table' && !output.fields) renderer.names = await namesFor(client, ctx.signal, { campaigns: true });
  const forwarder =
    target && secret
      ? new Forwarder({ url: target, secret, proxy: ctx.proxy(), maxAttempts: FORWARD_ATTEMPTS, signal: ctx.signal, onRetry: (line) => ctx.io.info(terminalSafeLine(line)) })
      : undefined;
  const shows = eventFilter(filters);
  /** the first event the receiver did not take; from then on the saved cursor stays where it was */
  let undelivered: { id: string; count: number } | undefined;
  const window = last === undefined ? undefined : new RingBuffer<FeedEvent>(last);
  let inCatchUp = true;

  const show = async (item: FeedEvent): Promise<void> => {
    if (!forwarder) return renderer.event(item.raw, item.event);
    const result = await forwarder.forward(item);
    await renderer.event(item.raw, item.event, forwardNote(result));
    if (!result.ok) {
      if (undelivered === undefined) {
        undelivered = { id: String(item.event?.id ?? '?'), count: 0 };
        ctx.io.info(output.chalk.yellow(`note: event ${terminalSafeLine(undelivered.id)} was not delivered; the saved cursor stays before it for the rest of this run`));
      }
      undelivered.count++;
    }
  };
  // The saved cursor means "everything before it was shown". A run that leaves events out (filters,
  // -n) must not move it, or a later --resume would skip what this run hid.
  const filtered = [opts.link, opts.order, opts.brand, opts.campaign, opts.since].some((value) => value !== undefined);
  const showsEverything = (opts.type ?? []).length === 0 && last === undefined && !filtered;
  if (!showsEverything && opts.resume) ctx.io.info('note: with --type, -n or another filter the saved cursor is read but not moved');
  const saveCursor = async (cursor: string | null): Promise<void> => {
    if (cursor === null || !showsEverything || undelivered !== undefined) return;
    await stdoutFlushed(ctx);
    await config.setCursor(profile.name, profile.baseUrl, cursor);
  };

  await renderer.begin();
  try {
    const giveUpAfterMs = giveUpAfterSeconds === undefined ? undefined : giveUpAfterSeconds * 1000;
    // --follow outlives a sandbox restart: a refused key is read again from the profile (and said so).
    const renewKey = opts.follow && profile.apiKey ? profileKeyRenewal(ctx, profile, profile.apiKey) : undefined;
    for await (const element of feed({ client, after, limit, follow: Boolean(opts.follow), intervalMs, giveUpAfterMs, signal: ctx.signal, renewKey })) {
      if (element.kind === 'status') {
        // A person's terminal gets the line fitted to its width (a pipe gets it whole).
        const width = ctx.io.stderrWidth();
        const message = terminalSafeLine(`… ${element.message}`);
        const line = width === undefined ? message : truncate(message, width);
        ctx.io.info(element.level === 'warning' ? output.chalk.yellow(line) : line);
      } else if (element.kind === 'page') {
        const shown = element.events.filter((item) => shows(item.event));
        // -n: the catch-up is only remembered; it is shown, and its cursor saved, once caught up.
        if (window && inCatchUp) {
          shown.forEach((item) => window.push(item));
          continue;
        }
        for (const item of shown) await show(item);
        await saveCursor(element.cursor);
      } else {
        if (window && inCatchUp) for (const item of window.toArray()) await show(item);
        inCatchUp = false;
        await saveCursor(element.cursor);
        if (renderer.count === 0 && !opts.follow && ctx.format === 'table') ctx.io.info('No events.');
        if (opts.follow && ctx.io.stderrIsTTY) ctx.io.info(output.chalk.dim(`Caught up; polling every ${intervalMs / 1000}s (Ctrl-C to stop).`));
      }
    }
    if (undelivered !== undefined) {
      throw new FailureError(
        `${undelivered.count} event${undelivered.count === 1 ? '' : 's'} not delivered to ${target}, the first ${terminalSafeLine(undelivered.id)}`,
        'forward_failed',
        'the saved cursor stays before that event; fix the receiver and run again with --resume',
      );
    }
  } catch (error) {
    // The reader went away (`| head`): the page in flight keeps its old cursor; nothing to report.
    if (isOutputClosed(error) || stopReason(ctx.signal) === 'output-closed') return ExitCode.ok;
    if (opts.resume && isRefusedStartCursor(error)) {
      throw explainRefusedCursor(error, `the saved cursor of profile ${profile.name}`, nextPageCommand('svc events tail --resume --from-start', ctx.givenGlobals, {}));
    }
    if (!(error instanceof InterruptedError) && !ctx.signal.aborted) throw error;
    // Ctrl-C: every fully written page already saved its cursor; end quietly with 130.
    return ExitCode.interrupted;
  } finally {
    // Closes a json array even after Ctrl-C; a closed stdout has nothing left to close.
    await renderer.end().catch(() => undefined);
    await forwarder?.close();
  }
}

/** Resolves once everything written to stdout so far has been handed to the OS. */
function stdoutFlushed(ctx: Context): Promise<void> {
  return new Promise((resolve, reject) => ctx.io.streams.stdout.write('', (error) => (error ? reject(error) : resolve())));
}
