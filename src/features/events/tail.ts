/**
 * The consumer of `svc events tail` (the verb checks the flags into a TailPlan): the producer
 * (`feed.ts`) yields pages; this shows and forwards each event, then saves the cursor — only after
 * the whole page is on stdout and at the receiver, so a run killed at any moment and restarted with
 * `--resume` skips nothing (it may repeat the page it was in). Two decisions keep that guarantee:
 * - A run that leaves events out (filters, `-n`) reads the saved cursor but never moves it: the
 *   cursor means "every event before it was shown", which a filtered run cannot claim.
 * - An event the receiver of `--forward-to` did not take (after bounded retries, or a 4xx) is
 *   reported beside the event and the tail goes on, but the saved cursor stays before the first such
 *   event for the rest of the run, so `--resume` delivers it again (receivers dedupe by event id).
 *   Without --follow the run then ends with exit 1.
 */
import type { ApiClient } from '../../api/client.js';
import { explainRefusedCursor } from '../../api/cursor-refusal.js';
import { defaultColumns } from '../../api/resource-fields.js';
import type { Context, ResolvedProfile } from '../../app/context.js';
import { isOutputClosed, stopReason } from '../../core/abort.js';
import type { ConfigStore } from '../../core/config.js';
import { ExitCode, FailureError, InterruptedError } from '../../core/errors.js';
import { truncate, type Output } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { nextPageCommand } from '../list.js';
import { namesFor } from '../../app/names.js';
import { profileKeyRenewal } from '../profile-key.js';
import { feed, isRefusedStartCursor, type FeedElement, type FeedEvent } from './feed.js';
import { Forwarder, forwardNote } from './forward.js';
import { EventRenderer } from './render.js';
import { RingBuffer, eventFilter, filtersNothing, type EventFilters } from './select.js';

/** A receiver gets this many tries per event (5xx, time-out, no connection); a 4xx gets one. */
const FORWARD_ATTEMPTS = 4;

/** What the verb's flags ask for, checked. */
export interface TailPlan {
  follow: boolean;
  after: string | undefined;
  resume: boolean;
  fromStart: boolean;
  limit: number;
  /** -n: show only the last this many events of the catch-up */
  last: number | undefined;
  intervalMs: number;
  giveUpAfterMs: number | undefined;
  filters: EventFilters;
  /** --forward-to, and the webhook secret that signs what goes there */
  target: string | undefined;
  secret: string | undefined;
}

/** Prints (and forwards) the feed as `plan` says; the exit code, or a thrown error. */
export async function tailEvents(ctx: Context, plan: TailPlan): Promise<number | void> {
  const client = await ctx.client();
  const profile = await ctx.profile();
  const config = await ctx.config();
  const after = startCursor(ctx, plan, config, profile);
  const output = await ctx.output();
  const renderer = await openRenderer(ctx, output, client, plan.target !== undefined);
  const forwarder = openForwarder(ctx, plan);
  if (!showsEverything(plan) && plan.resume) ctx.io.info('note: with --type, -n or another filter the saved cursor is read but not moved');
  const tail = new Tail(ctx, plan, output, renderer, forwarder, (cursor) => config.setCursor(profile.name, profile.baseUrl, cursor));
  await renderer.begin();
  try {
    // --follow outlives a sandbox restart: a refused key is read again from the profile (and said so).
    const renewKey = plan.follow && profile.apiKey ? profileKeyRenewal(ctx, profile, profile.apiKey) : undefined;
    const { limit, follow, intervalMs, giveUpAfterMs } = plan;
    for await (const element of feed({ client, after, limit, follow, intervalMs, giveUpAfterMs, signal: ctx.signal, renewKey })) await tail.take(element);
    tail.finish();
  } catch (error) {
    return tailEnded(ctx, plan, profile.name, error);
  } finally {
    // Closes a json array even after Ctrl-C; a closed stdout has nothing left to close.
    await renderer.end().catch(() => undefined);
    await forwarder?.close();
  }
}

/** Whether the run shows every event (no filter, no -n): only such a run may move the saved cursor. */
function showsEverything(plan: TailPlan): boolean {
  return plan.last === undefined && filtersNothing(plan.filters);
}

/** Where the feed starts; says so when --resume finds no cursor, or --from-start replaces it. */
function startCursor(ctx: Context, plan: TailPlan, config: ConfigStore, profile: ResolvedProfile): string | undefined {
  // --from-start: the saved cursor is not read (it may belong to another feed, or be damaged); it is replaced page by page.
  const saved = plan.resume && !plan.fromStart ? config.getCursor(profile.name, profile.baseUrl) : undefined;
  if (plan.resume && !plan.fromStart && saved === undefined) ctx.io.info(`No saved cursor for profile ${profile.name}; starting from the oldest event.`);
  else if (plan.resume && plan.fromStart) ctx.io.info(`note: --from-start: reading the feed from its oldest event; the saved cursor of profile ${profile.name} is replaced as pages are shown`);
  return plan.fromStart ? undefined : plan.resume ? saved : plan.after;
}

async function openRenderer(ctx: Context, output: Output, client: ApiClient, notes: boolean): Promise<EventRenderer> {
  const renderer = new EventRenderer(output, { csvColumns: defaultColumns('event'), notes });
  // Names of brands and campaigns, for a person's table only (no request for JSON, JSON lines, CSV).
  if (ctx.format === 'table' && !output.fields) renderer.names = await namesFor(client, ctx.signal, { campaigns: true });
  return renderer;
}

function openForwarder(ctx: Context, plan: TailPlan): Forwarder | undefined {
  if (!plan.target || !plan.secret) return undefined;
  const onRetry = (line: string) => ctx.io.info(terminalSafeLine(line));
  return new Forwarder({ url: plan.target, secret: plan.secret, proxy: ctx.proxy(), maxAttempts: FORWARD_ATTEMPTS, signal: ctx.signal, onRetry });
}

/** How a tail that threw ends: quietly when the reader left, 130 on Ctrl-C, else the error explained. */
function tailEnded(ctx: Context, plan: TailPlan, profileName: string, error: unknown): number {
  // The reader went away (`| head`): the page in flight keeps its old cursor; nothing to report.
  if (isOutputClosed(error) || stopReason(ctx.signal) === 'output-closed') return ExitCode.ok;
  if (plan.resume && isRefusedStartCursor(error)) {
    throw explainRefusedCursor(error, `the saved cursor of profile ${profileName}`, nextPageCommand('svc events tail --resume --from-start', ctx.givenGlobals, {}));
  }
  if (!(error instanceof InterruptedError) && !ctx.signal.aborted) throw error;
  // Ctrl-C: every fully written page already saved its cursor; end quietly with 130.
  return ExitCode.interrupted;
}

/** Takes the feed's elements one by one: shows, forwards, and saves the cursor when it may. */
class Tail {
  /** the first event the receiver did not take; from then on the saved cursor stays where it was */
  private undelivered: { id: string; count: number } | undefined;
  private readonly window: RingBuffer<FeedEvent> | undefined;
  private readonly shows: ReturnType<typeof eventFilter>;
  private inCatchUp = true;

  constructor(
    private readonly ctx: Context,
    private readonly plan: TailPlan,
    private readonly output: Output,
    private readonly renderer: EventRenderer,
    private readonly forwarder: Forwarder | undefined,
    private readonly setCursor: (cursor: string) => Promise<void>,
  ) {
    this.shows = eventFilter(plan.filters);
    this.window = plan.last === undefined ? undefined : new RingBuffer<FeedEvent>(plan.last);
  }

  async take(element: FeedElement): Promise<void> {
    if (element.kind === 'status') this.status(element);
    else if (element.kind === 'page') await this.page(element.events, element.cursor);
    else await this.caughtUp(element.cursor);
  }

  /** Throws when an event was not delivered (the run ends with exit 1). */
  finish(): void {
    if (this.undelivered === undefined) return;
    const { count, id } = this.undelivered;
    throw new FailureError(
      `${count} event${count === 1 ? '' : 's'} not delivered to ${this.plan.target}, the first ${terminalSafeLine(id)}`,
      'forward_failed',
      'the saved cursor stays before that event; fix the receiver and run again with --resume',
    );
  }

  private status(element: { level: 'warning' | 'info'; message: string }): void {
    // A person's terminal gets the line fitted to its width (a pipe gets it whole).
    const width = this.ctx.io.stderrWidth();
    const message = terminalSafeLine(`… ${element.message}`);
    const line = width === undefined ? message : truncate(message, width);
    this.ctx.io.info(element.level === 'warning' ? this.output.chalk.yellow(line) : line);
  }

  private async page(events: FeedEvent[], cursor: string | null): Promise<void> {
    const shown = events.filter((item) => this.shows(item.event));
    // -n: the catch-up is only remembered; it is shown, and its cursor saved, once caught up.
    if (this.window && this.inCatchUp) {
      shown.forEach((item) => this.window?.push(item));
      return;
    }
    for (const item of shown) await this.show(item);
    await this.saveCursor(cursor);
  }

  private async caughtUp(cursor: string | null): Promise<void> {
    if (this.window && this.inCatchUp) for (const item of this.window.toArray()) await this.show(item);
    this.inCatchUp = false;
    await this.saveCursor(cursor);
    if (this.renderer.count === 0 && !this.plan.follow && this.ctx.format === 'table') this.ctx.io.info('No events.');
    if (this.plan.follow && this.ctx.io.stderrIsTTY) this.ctx.io.info(this.output.chalk.dim(`Caught up; polling every ${this.plan.intervalMs / 1000}s (Ctrl-C to stop).`));
  }

  private async show(item: FeedEvent): Promise<void> {
    if (!this.forwarder) return this.renderer.event(item.raw, item.event);
    const result = await this.forwarder.forward(item);
    await this.renderer.event(item.raw, item.event, forwardNote(result));
    if (result.ok) return;
    if (this.undelivered === undefined) {
      this.undelivered = { id: String(item.event?.id ?? '?'), count: 0 };
      this.ctx.io.info(this.output.chalk.yellow(`note: event ${terminalSafeLine(this.undelivered.id)} was not delivered; the saved cursor stays before it for the rest of this run`));
    }
    this.undelivered.count++;
  }

  /** The saved cursor means "everything before it was shown": a run that left events out never moves it. */
  private async saveCursor(cursor: string | null): Promise<void> {
    if (cursor === null || !showsEverything(this.plan) || this.undelivered !== undefined) return;
    await stdoutFlushed(this.ctx);
    await this.setCursor(cursor);
  }
}

/** Resolves once everything written to stdout so far has been handed to the OS. */
function stdoutFlushed(ctx: Context): Promise<void> {
  return new Promise((resolve, reject) => ctx.io.streams.stdout.write('', (error) => (error ? reject(error) : resolve())));
}
