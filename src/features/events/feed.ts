/**
 * The event feed as a producer: an async generator of typed elements (a page of events, "caught
 * up", a status line) that pages through GET /events, then, with `follow`, polls for more. It never
 * writes anything itself; `tail` renders the elements and saves the cursor after each page.
 * In follow mode transient failures (429, 5xx, time-outs, connection errors) are this loop's to
 * wait out: each poll is one request (no retries inside the client, so no flood of retry notices),
 * an outage is one status element as it starts (its time and cause) and one as it ends (its time and
 * length), however often its cause changes, and the loop carries on with growing waits. A refused key
 * is renewed once when `renewKey` finds another one (a sandbox restarted and saved its new key). `giveUpAfterMs` ends it (the last error, exit 5) once no poll has succeeded
 * for that long. Refusals such as 401, 403, 400 end it at once.
 */
import type { ApiClient } from '../../api/client.js';
import { CursorGuard } from '../../api/cursor-guard.js';
import { isRefusedCursor } from '../../api/cursor-refusal.js';
import { readPage, type Page } from '../../api/paginate.js';
import { listEvents } from '../../api/resources.js';
import { backoffMs } from '../../api/retry.js';
import type { SvcEvent } from '../../api/types.js';
import { ApiError, UnavailableError, isTransient } from '../../core/errors.js';
import { sleep as abortableSleep } from '../../core/sleep.js';
import type { Sleep } from '../../api/pacer.js';

/** One event with the exact text it is printed and forwarded as. */
export interface FeedEvent {
  event: SvcEvent;
  raw: string;
}

export type FeedElement =
  /** a page of events, and the cursor that resumes after its last event */
  | { kind: 'page'; events: FeedEvent[]; cursor: string | null }
  /** the feed has no more events for now (emitted once, at the end of the catch-up) */
  | { kind: 'caught-up'; cursor: string | null }
  | { kind: 'status'; level: 'warning' | 'info'; message: string };

export interface FeedOptions {
  client: ApiClient;
  after?: string;
  limit?: number;
  follow: boolean;
  intervalMs: number;
  signal: AbortSignal;
  sleep?: Sleep;
  /** clock for pacing polls and for giving up, ms */
  now?: () => number;
  /** with `follow`: give up (throw the last error) once no poll has succeeded for this long */
  giveUpAfterMs?: number;
  /** the wall clock, ms, for the times status lines name (default Date.now) */
  clock?: () => number;
  /**
   * With `follow`, on a refused key (401): a client with the key the profile holds now, and the line
   * that says so; undefined when the key did not change (the refusal then ends the feed).
   */
  renewKey?: () => Promise<{ client: ApiClient; message: string } | undefined>;
}

/** Waits between failed polls stop growing here, so an outage ends within half a minute of recovery. */
const MAX_FAILURE_WAIT_MS = 30_000;

/** A key refused right after an outage is asked for again from the profile for this long, every KEY_RETRY_MS. */
const KEY_GRACE_MS = 10_000;
const KEY_RETRY_MS = 1_000;

/** Refusals of the cursor a walk started from (see isRefusedStartCursor). */
const refusedStarts = new WeakSet<object>();

/**
 * Whether `error` ended a walk of feed() at its first request, refusing the `after` it was given:
 * a saved cursor the service does not know (cursor-refusal.ts says how to start over).
 */
export function isRefusedStartCursor(error: unknown): error is ApiError {
  return typeof error === 'object' && error !== null && refusedStarts.has(error);
}

export async function* feed(options: FeedOptions): AsyncGenerator<FeedElement> {
  const walk = new FeedWalk(options);
  for (;;) {
    const polledAt = walk.now();
    let page: Page<unknown>;
    try {
      page = await walk.fetchPage();
    } catch (error) {
      yield* walk.failed(error);
      continue;
    }
    yield* walk.succeeded();
    const { events, moved } = walk.advance(page);
    if (events.length > 0) yield { kind: 'page', events, cursor: walk.cursor };
    // An empty page means caught up; so does a cursor that does not move (it would repeat the page).
    if (events.length > 0 && moved) continue;
    if (!walk.caughtUp) {
      walk.caughtUp = true;
      yield { kind: 'caught-up', cursor: walk.cursor };
    }
    if (!options.follow) return;
    // Polls start one interval apart (the time spent asking and printing counts towards the wait),
    // so an event is printed within the interval plus one round trip.
    await walk.sleep(Math.max(0, options.intervalMs - (walk.now() - polledAt)), options.signal);
  }
}

/** One walk of the feed: where it is, and the state of the outage or key refusal under way. */
class FeedWalk {
  readonly sleep: Sleep;
  readonly now: () => number;
  private readonly clock: () => number;
  private client: ApiClient;
  cursor: string | null;
  caughtUp = false;
  private failures = 0;
  private succeededAt: number;
  /** when the outage under way started, on the wall clock */
  private downSince = 0;
  /** whether a page has been read */
  private read = false;
  /** when the key was first refused in the outage under way */
  private refusedSince: number | undefined;
  /** the key was renewed and no page has been read with it yet: the old cursor may belong to another feed */
  private renewed = false;
  // A cursor already followed, or the same page twice, ends the walk (cursor_loop) before it is shown.
  private guard: CursorGuard;

  constructor(private readonly options: FeedOptions) {
    this.sleep = options.sleep ?? abortableSleep;
    this.cursor = options.after ?? null;
    this.now = options.now ?? (() => performance.now());
    this.clock = options.clock ?? Date.now;
    this.client = options.client;
    this.succeededAt = this.now();
    this.guard = new CursorGuard('GET /events', this.cursor);
  }

  async fetchPage(): Promise<Page<unknown>> {
    const { options } = this;
    const response = await listEvents(this.client, { after: this.cursor ?? undefined, limit: options.limit }, {
      signal: options.signal,
      // Following, this loop is the retry loop (with its status line and --give-up-after).
      ...(options.follow ? { retry: false } : {}),
    });
    return readPage<unknown>(response.body, 'GET /events');
  }

  /** A failed poll: the key renewed, the cursor dropped, or the outage waited out; else the error ends the feed. */
  async *failed(error: unknown): AsyncGenerator<FeedElement> {
    // The cursor the walk started from, refused before any page was read: a saved cursor of another feed.
    if (!this.read && this.options.after !== undefined && isRefusedCursor(error)) refusedStarts.add(error);
    const { follow, renewKey } = this.options;
    if (follow && renewKey && error instanceof ApiError && error.status === 401) {
      if (yield* this.keyRefused(renewKey)) return;
    }
    // A new key's feed does not know the old key's cursor (a restarted sandbox): its feed is read from the start.
    if (this.renewed && isRefusedCursor(error)) {
      this.renewed = false;
      this.cursor = null;
      this.guard = new CursorGuard('GET /events', this.cursor);
      yield this.info('the feed does not know the cursor of the old key (a restarted sandbox?); reading its events from the oldest');
      return;
    }
    yield* this.waitOut(error);
  }

  /** A refused key: renewed when the profile holds another, or asked again shortly after an outage; false when neither applies. */
  private async *keyRefused(renewKey: NonNullable<FeedOptions['renewKey']>): AsyncGenerator<FeedElement, boolean> {
    const renewal = await renewKey();
    if (renewal) {
      this.client = renewal.client;
      this.renewed = true;
      yield this.info(renewal.message);
      return true;
    }
    // Refused just after an outage: a restarted sandbox may not have saved its new key yet. Asked again shortly.
    this.refusedSince ??= this.now();
    if (this.failures > 0 && this.now() - this.refusedSince < KEY_GRACE_MS) {
      await this.sleep(KEY_RETRY_MS, this.options.signal);
      return true;
    }
    return false;
  }

  /** A transient failure while following: one line as the outage starts, then a growing wait; else thrown. */
  private async *waitOut(error: unknown): AsyncGenerator<FeedElement> {
    const { follow, giveUpAfterMs, signal } = this.options;
    if (!follow || !isTransient(error)) throw error;
    const downMs = this.now() - this.succeededAt;
    if (giveUpAfterMs !== undefined && downMs >= giveUpAfterMs) throw giveUp(error, downMs);
    // One line as the outage starts; a cause that changes meanwhile is not news to a person.
    if (this.failures === 0) {
      this.downSince = this.clock();
      // The cause comes last: on a narrow terminal it is what gives way.
      const giveUpNote = giveUpAfterMs === undefined ? '' : ` (giving up after ${giveUpAfterMs / 1000}s without success)`;
      yield { kind: 'status', level: 'warning', message: `${clockTime(this.downSince)} feed unavailable, retrying with backoff${giveUpNote}: ${readCause(error)}` };
    }
    const backoff = Math.min(MAX_FAILURE_WAIT_MS, backoffMs(this.failures));
    this.failures++;
    // The last wait ends when giving up is due, so the verdict comes on time, after one more try.
    const untilGiveUp = giveUpAfterMs === undefined ? Infinity : Math.max(0, giveUpAfterMs - downMs);
    await this.sleep(Math.min(backoff, untilGiveUp), signal);
  }

  /** A poll succeeded: the end of an outage is told, and the outage and key state cleared. */
  async *succeeded(): AsyncGenerator<FeedElement> {
    if (this.failures > 0) {
      const back = this.clock();
      yield { kind: 'status', level: 'info', message: `${clockTime(back)} feed reachable again after ${durationText(back - this.downSince)} (unavailable since ${clockTime(this.downSince)})` };
      this.failures = 0;
    }
    this.succeededAt = this.now();
    this.read = true;
    this.renewed = false;
    this.refusedSince = undefined;
  }

  /** A page's events, checked by the guard, and the cursor moved past them; `moved`: the cursor went on to a new place. */
  advance(page: Page<unknown>): { events: FeedEvent[]; moved: boolean } {
    const events = page.items.map(toFeedEvent);
    this.guard.page(events.map((item) => item.raw).join('\n'), events.length === 0);
    // nextCursor comes with every page, the last included; keep the last one given.
    const previous = this.cursor;
    this.cursor = page.nextCursor ?? this.cursor;
    if (this.cursor === null || this.cursor === previous) return { events, moved: false };
    this.guard.follow(this.cursor);
    return { events, moved: true };
  }

  private info(message: string): FeedElement {
    return { kind: 'status', level: 'info', message: `${clockTime(this.clock())} ${message}` };
  }
}

function giveUp(error: unknown, downMs: number): UnavailableError {
  return new UnavailableError(
    `no poll of the event feed succeeded for ${Math.round(downMs / 1000)}s (last: ${readCause(error)}); giving up as --give-up-after asks`,
    'feed_unavailable',
    error,
    'the saved cursor is kept; start again with --resume when the service is back',
  );
}


/**
 * A failed poll's cause for people. A poll only reads, so advice the service gives for writes ("retry
 * with the same Idempotency-Key") is left out.
 */
export function readCause(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const clauses = message.split(/(?<=[;.])\s+/).filter((clause) => !/idempotency[- ]key/i.test(clause));
  return clauses.join(' ').replace(/[;.]$/, '') || message;
}

/** A wall-clock time to the second, UTC, as status lines name it: `19:04:12 UTC`. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** How long an outage lasted: `45s`, `2m 28s`, `1h 3m`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** Unknown shapes and types pass through untouched: they are shown, never dropped. */
function toFeedEvent(item: unknown): FeedEvent {
  return { event: (item ?? {}) as SvcEvent, raw: JSON.stringify(item) };
}
