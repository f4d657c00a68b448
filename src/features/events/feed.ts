/**
 * The event feed as a producer: an async generator of typed elements (a page of events, "caught
 * up", a status line) that pages through GET /events, then, with `follow`, polls for more. It never
 * writes anything itself; `tail` renders the elements and saves the cursor after each page.
 * In follow mode transient failures (429, 5xx, time-outs, connection errors) are this loop's to
 * wait out: each poll is one request (no retries inside the client, so no flood of retry notices),
 * the first failure and each change of its reason become one status element, and the loop carries
 * on with growing waits. `giveUpAfterMs` ends it (the last error, exit 5) once no poll has succeeded
 * for that long. Refusals such as 401, 403, 400 end it at once.
 */
import type { ApiClient } from '../../api/client.js';
import { CursorGuard } from '../../api/cursor-guard.js';
import { isRefusedCursor } from '../../api/cursor-refusal.js';
import { readPage, type Page } from '../../api/paginate.js';
import { listEvents } from '../../api/resources.js';
import { backoffMs } from '../../api/retry.js';
import type { SvcEvent } from '../../api/types.js';
import { UnavailableError, isTransient, type ApiError } from '../../core/errors.js';
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
}

/** Waits between failed polls stop growing here, so an outage ends within half a minute of recovery. */
const MAX_FAILURE_WAIT_MS = 30_000;

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
  const sleep = options.sleep ?? abortableSleep;
  let cursor: string | null = options.after ?? null;
  let caughtUp = false;
  let failures = 0;
  let reason: string | undefined;
  const now = options.now ?? (() => performance.now());
  let succeededAt = now();
  /** whether a page has been read */
  let read = false;
  // A cursor already followed, or the same page twice, ends the walk (cursor_loop) before it is shown.
  const guard = new CursorGuard('GET /events', cursor);
  for (;;) {
    let page: Page<unknown>;
    const polledAt = now();
    try {
      page = readPage<unknown>((await listEvents(options.client, { after: cursor ?? undefined, limit: options.limit }, {
        signal: options.signal,
        // Following, this loop is the retry loop (with its status line and --give-up-after).
        ...(options.follow ? { retry: false } : {}),
      })).body, 'GET /events');
    } catch (error) {
      // The cursor the walk started from, refused before any page was read: a saved cursor of another feed.
      if (!read && options.after !== undefined && isRefusedCursor(error)) refusedStarts.add(error);
      if (!options.follow || !isTransient(error)) throw error;
      const message = (error as Error).message;
      const downMs = now() - succeededAt;
      if (options.giveUpAfterMs !== undefined && downMs >= options.giveUpAfterMs) throw giveUp(error, downMs);
      if (message !== reason) {
        yield { kind: 'status', level: 'warning', message: `feed unavailable (${message}); retrying with backoff${failures > 0 ? '' : options.giveUpAfterMs === undefined ? '' : `, giving up after ${options.giveUpAfterMs / 1000}s without success`}` };
      }
      reason = message;
      const backoff = Math.min(MAX_FAILURE_WAIT_MS, backoffMs(failures));
      failures++;
      // The last wait ends when giving up is due, so the verdict comes on time, after one more try.
      const untilGiveUp = options.giveUpAfterMs === undefined ? Infinity : Math.max(0, options.giveUpAfterMs - downMs);
      await sleep(Math.min(backoff, untilGiveUp), options.signal);
      continue;
    }
    if (failures > 0) {
      yield { kind: 'status', level: 'info', message: 'feed reachable again' };
      failures = 0;
      reason = undefined;
    }
    succeededAt = now();
    read = true;
    const { items, nextCursor } = page;
    const events = items.map(toFeedEvent);
    guard.page(events.map((item) => item.raw).join('\n'), events.length === 0);
    // nextCursor comes with every page, the last included; keep the last one given.
    const previous = cursor;
    cursor = nextCursor ?? cursor;
    if (cursor !== null && cursor !== previous) guard.follow(cursor);
    if (items.length > 0) yield { kind: 'page', events, cursor };
    // An empty page means caught up; so does a cursor that does not move (it would repeat the page).
    if (items.length > 0 && cursor !== null && cursor !== previous) continue;
    if (!caughtUp) {
      caughtUp = true;
      yield { kind: 'caught-up', cursor };
    }
    if (!options.follow) return;
    // Polls start one interval apart (the time spent asking and printing counts towards the wait),
    // so an event is printed within the interval plus one round trip.
    await sleep(Math.max(0, options.intervalMs - (now() - polledAt)), options.signal);
  }
}

function giveUp(error: unknown, downMs: number): UnavailableError {
  return new UnavailableError(
    `no poll of the event feed succeeded for ${Math.round(downMs / 1000)}s (last: ${(error as Error).message}); giving up as --give-up-after asks`,
    'feed_unavailable',
    error,
    'the saved cursor is kept; start again with --resume when the service is back',
  );
}


/** Unknown shapes and types pass through untouched: they are shown, never dropped. */
function toFeedEvent(item: unknown): FeedEvent {
  return { event: (item ?? {}) as SvcEvent, raw: JSON.stringify(item) };
}
