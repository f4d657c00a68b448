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
import type { Context } from '../../core/context.js';
import { ExitCode, FailureError, InterruptedError, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { resolveWebhookSecret } from '../../core/signature-secret.js';
import { parseSince } from '../../core/time.js';
import * as validate from '../../core/validate.js';
import { defaultColumns } from '../../api/resource-fields.js';
import { feed, type FeedEvent } from './feed.js';
import { Forwarder, forwardNote, forwardUrl } from './forward.js';
import { EventRenderer } from './render.js';
import { namesFor } from '../../features/names.js';
import { RingBuffer, eventFilter, warnUnknownTypes } from './select.js';

export interface TailOptions {
  follow?: boolean;
  after?: string;
  resume?: boolean;
  type?: string[];
  last?: string;
  limit?: string;
  interval?: string;
  forwardTo?: string;
  link?: string;
  order?: string;
  brand?: string;
  campaign?: string;
  since?: string;
  giveUpAfter?: string;
}

/** A receiver gets this many tries per event (5xx, time-out, no connection); a 4xx gets one. */
const FORWARD_ATTEMPTS = 4;

export async function run(ctx: Context, opts: TailOptions): Promise<number | void> {
  if (opts.after !== undefined && opts.resume) throw new UsageError('--after and --resume: give one or the other');
  if (opts.after !== undefined && opts.after.trim() === '') throw new UsageError('--after: empty cursor');
  // Catch-up reads the biggest pages unless told otherwise: fewer round trips during an incident.
  const limit = validate.limit(opts.limit) ?? 100;
  const last = validate.positiveInt(opts.last, '-n/--last', 0);
  const intervalMs = (validate.positiveNumber(opts.interval, '--interval') ?? 2) * 1000;
  const giveUpAfterSeconds = validate.positiveNumber(opts.giveUpAfter, '--give-up-after');
  const filters = {
    types: opts.type,
    linkId: validate.optionalUuid(opts.link, '--link'),
    orderId: validate.optionalUuid(opts.order, '--order'),
    brandId: validate.optionalUuid(opts.brand, '--brand'),
    campaignId: validate.optionalUuid(opts.campaign, '--campaign'),
    sinceMicros: parseSince(opts.since, Date.now()),
  };
  warnUnknownTypes(opts.type, (line) => ctx.io.info(line));
  const target = opts.forwardTo === undefined ? undefined : forwardUrl(opts.forwardTo);
  const secret = target === undefined ? undefined : (await resolveWebhookSecret(ctx, { stdinFlag: false })).secret;

  const client = await ctx.client();
  const profile = await ctx.profile();
  const config = await ctx.config();
  const after = opts.resume ? config.getCursor(profile.name, profile.baseUrl) : opts.after;
  if (opts.resume && after === undefined) ctx.io.info(`No saved cursor for profile ${profile.name}; starting from the oldest event.`);

  const output = await ctx.output();
  const renderer = new EventRenderer(output, { csvColumns: defaultColumns('event'), notes: target !== undefined });
  // Names of brands and campaigns, for a person's table only (no request for JSON, JSON lines, CSV).
  if (ctx.format === 'table' && !output.fields) renderer.names = await namesFor(client, ctx.signal, { campaigns: true });
  const forwarder =
    target && secret
      ? new Forwarder({ url: target, secret, maxAttempts: FORWARD_ATTEMPTS, signal: ctx.signal, onRetry: (line) => ctx.io.info(terminalSafeLine(line)) })
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
    for await (const element of feed({ client, after, limit, follow: Boolean(opts.follow), intervalMs, giveUpAfterMs, signal: ctx.signal })) {
      if (element.kind === 'status') {
        const message = terminalSafeLine(element.message);
        ctx.io.info(element.level === 'warning' ? output.chalk.yellow(`… ${message}`) : `… ${message}`);
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
    if ((error as NodeJS.ErrnoException)?.code === 'EPIPE') return ExitCode.ok;
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
