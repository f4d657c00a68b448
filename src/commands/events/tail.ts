/**
 * `svc events tail`: prints the event feed and, with `--follow`, keeps polling. The producer
 * (`feed.ts`) yields pages; this consumer shows and forwards each event, then saves the cursor —
 * only after the whole page is on stdout and at the receiver, so a run killed at any moment and
 * restarted with `--resume` skips nothing (it may repeat the page it was in).
 */
import type { Context } from '../../core/context.js';
import { ExitCode, FailureError, InterruptedError, UsageError } from '../../core/errors.js';
import { resolveWebhookSecret } from '../../core/signature-secret.js';
import * as validate from '../../core/validate.js';
import { feed, type FeedEvent } from './feed.js';
import { Forwarder, describe, forwardUrl } from './forward.js';
import { EventRenderer } from './render.js';
import { RingBuffer, typeFilter } from './select.js';

export interface TailOptions {
  follow?: boolean;
  after?: string;
  resume?: boolean;
  type?: string[];
  last?: string;
  limit?: string;
  interval?: string;
  forwardTo?: string;
}

/** Without --follow a receiver gets this many tries per event before the run stops. */
const FORWARD_ATTEMPTS = 4;

export async function run(ctx: Context, opts: TailOptions): Promise<number | void> {
  if (opts.after !== undefined && opts.resume) throw new UsageError('--after and --resume: give one or the other');
  if (opts.after !== undefined && opts.after.trim() === '') throw new UsageError('--after: empty cursor');
  // Catch-up reads the biggest pages unless told otherwise: fewer round trips during an incident.
  const limit = validate.limit(opts.limit) ?? 100;
  const last = validate.positiveInt(opts.last, '-n/--last', 0);
  const intervalMs = (validate.positiveNumber(opts.interval, '--interval') ?? 2) * 1000;
  const target = opts.forwardTo === undefined ? undefined : forwardUrl(opts.forwardTo);
  const secret = target === undefined ? undefined : (await resolveWebhookSecret(ctx, { stdinFlag: false })).secret;

  const client = await ctx.client();
  const profile = await ctx.profile();
  const config = await ctx.config();
  const after = opts.resume ? config.getCursor(profile.name, profile.baseUrl) : opts.after;
  if (opts.resume && after === undefined) ctx.io.info(`No saved cursor for profile ${profile.name}; starting from the oldest event.`);

  const output = await ctx.output();
  const renderer = new EventRenderer(output);
  const forwarder =
    target && secret
      ? new Forwarder({ url: target, secret, maxAttempts: opts.follow ? Infinity : FORWARD_ATTEMPTS, signal: ctx.signal, onRetry: (line) => ctx.io.info(line) })
      : undefined;
  const shows = typeFilter(opts.type);
  const window = last === undefined ? undefined : new RingBuffer<FeedEvent>(last);
  let inCatchUp = true;

  const show = async (item: FeedEvent): Promise<void> => {
    if (!forwarder) return renderer.event(item.raw, item.event);
    const result = await forwarder.forward(item);
    const note = result.ok ? `→ ${result.status}` : `→ failed after ${result.attempts} attempts: ${describe(result)}`;
    await renderer.event(item.raw, item.event, output.chalk[result.ok ? 'green' : 'red'](note));
    if (!result.ok) {
      throw new FailureError(
        `could not forward event ${item.event?.id} to ${target}: ${describe(result)}`,
        'forward_failed',
        'the saved cursor stays before this event; fix the receiver and run again with --resume',
      );
    }
  };
  // The saved cursor means "everything before it was shown". A run that leaves events out (--type,
  // -n) must not move it, or a later --resume would skip what this run hid.
  const showsEverything = (opts.type ?? []).length === 0 && last === undefined;
  if (!showsEverything && opts.resume) ctx.io.info('note: with --type or -n the saved cursor is read but not moved');
  const saveCursor = async (cursor: string | null): Promise<void> => {
    if (cursor === null || !showsEverything) return;
    await stdoutFlushed(ctx);
    await config.setCursor(profile.name, profile.baseUrl, cursor);
  };

  await renderer.begin();
  try {
    for await (const element of feed({ client, after, limit, follow: Boolean(opts.follow), intervalMs, signal: ctx.signal })) {
      if (element.kind === 'status') {
        ctx.io.info(element.level === 'warning' ? output.chalk.yellow(`… ${element.message}`) : `… ${element.message}`);
      } else if (element.kind === 'page') {
        const shown = element.events.filter((item) => shows(item.event?.type));
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
