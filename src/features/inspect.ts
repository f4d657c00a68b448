/**
 * What `svc inspect` and the assistant's `inspect` tool share: a link or order by id (trying the
 * link, then the order: a miss is not an error until both miss) and its history from the event feed,
 * every event whose `data.id` is the id, oldest first (the feed's save order).
 *
 * The feed is read through the shared paginator, the largest page at a time, keeping only this record's
 * events, so memory stays flat however long the feed. The API cannot start the feed at a time, so
 * `since` cannot shorten the read: every kept page is read and events that occurred before it are
 * left out. (The feed is in save order, not sorted by occurredAt, so no early stop is safe.)
 */
import { pagesOf } from '../api/paginate.js';
import { getPersonalLink, getRewardStoreOrder, listEvents } from '../api/resources.js';
import { API_LIMITS, type PersonalLink, type RewardStoreOrder, type SvcEvent } from '../api/types.js';
import type { ApiClient } from '../api/client.js';
import { ApiError, ExitCode, SvcError } from '../core/errors.js';
import { parseTimestamp } from '../core/time.js';

export type Found = { kind: 'link'; record: PersonalLink } | { kind: 'order'; record: RewardStoreOrder };

/** Neither a link nor an order of this key has the id (exit 3). */
export class NotFoundError extends SvcError {
  constructor(id: string) {
    super(`no link or order with id ${id} for this key`, ExitCode.notFound, 'not_found', 'inspect takes a personal link id or a store order id this key can read');
  }
}

/** GET the link, then the order; a 404 (or a 403 for a scope the key lacks) is a miss, not an error. */
export async function findRecord(client: ApiClient, id: string, signal: AbortSignal): Promise<Found> {
  const misses: ApiError[] = [];
  for (const [kind, read] of [['link', getPersonalLink], ['order', getRewardStoreOrder]] as const) {
    try {
      const record = (await read(client, id, { signal })).body;
      return { kind, record } as Found;
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 403)) throw error;
      misses.push(error);
    }
  }
  // Both refused for scope: that is the key's problem (exit 4), not a missing record.
  if (misses.every((miss) => miss.status === 403)) throw misses[0];
  throw new NotFoundError(id);
}

/** How far the read of the feed has got, after each page. */
export interface HistoryProgress {
  pages: number;
  read: number;
  kept: number;
}

/** This record's events (id in lower case) from the whole feed, oldest first. */
export async function recordHistory(
  client: ApiClient,
  id: string,
  sinceMicros: number | undefined,
  signal: AbortSignal,
  onPage?: (progress: HistoryProgress) => void,
): Promise<SvcEvent[]> {
  const kept: SvcEvent[] = [];
  let pages = 0;
  let read = 0;
  for await (const page of pagesOf(client, listEvents, { limit: API_LIMITS.pageSizeMax, all: true, signal })) {
    pages++;
    read += page.items.length;
    for (const event of page.items) if (belongs(event, id, sinceMicros)) kept.push(event);
    onPage?.({ pages, read, kept: kept.length });
  }
  return kept;
}

export function belongs(event: SvcEvent | undefined, id: string, sinceMicros: number | undefined): boolean {
  const data = event?.data as Record<string, unknown> | undefined;
  if (typeof data?.id !== 'string' || data.id.toLowerCase() !== id) return false;
  if (sinceMicros === undefined) return true;
  const at = parseTimestamp(event?.occurredAt);
  return at === undefined || at >= sinceMicros;
}
