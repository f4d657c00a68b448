/**
 * The one pagination loop, shared by every list command, `--all`, `events tail` and `api --paginate`.
 * It follows `nextCursor` and stops on a null cursor or on an empty page (a service may hand out a
 * cursor with an empty last page; following it forever would never end). A cursor already followed,
 * or a page identical to the one before, stops it with `cursor_loop` (cursor-guard.ts).
 */
import type { ApiClient, ApiResponse, Query } from './client.js';
import { UnavailableError } from '../core/errors.js';
import { CursorGuard, pageIdentity } from './cursor-guard.js';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The query members the pager sets. */
export interface PageQuery {
  after?: string;
  limit?: number;
}

export interface PageOptions {
  query?: Query;
  limit?: number;
  after?: string;
  /** follow cursors until the end; otherwise only the first page */
  all?: boolean;
  signal?: AbortSignal;
}

/** A list operation of the description (`listPersonalLinks`, `listEvents`, …): one page per call. */
export interface ListOperation<Q, T> {
  (client: ApiClient, query: Q, options?: { signal?: AbortSignal }): Promise<ApiResponse<Page<T>>>;
  /** the operation's path, which names the resource listed */
  readonly path: string;
}

/** Every page of a list operation, its query typed from the description (`after` and `limit` are the pager's). */
export function pagesOf<Q extends PageQuery, T>(
  client: ApiClient,
  list: ListOperation<Q, T>,
  options: Omit<PageOptions, 'query'> & { query?: Omit<Q, keyof PageQuery> } = {},
): AsyncGenerator<Page<T>> {
  return follow<Q, T>(`GET ${list.path}`, async (query) => (await list(client, query, { signal: options.signal })).body, options);
}

/** Every page under a path the caller names (`svc api --paginate`). */
export function pages<T>(client: ApiClient, path: string, options: PageOptions = {}): AsyncGenerator<Page<T>> {
  return follow<Query, T>(`GET ${path}`, (query) => client.get<unknown>(path, { query, signal: options.signal }), options);
}

async function* follow<Q extends PageQuery, T>(
  walk: string,
  fetchPage: (query: Q) => Promise<unknown>,
  options: Omit<PageOptions, 'query'> & { query?: object },
): AsyncGenerator<Page<T>> {
  let after = options.after;
  const guard = new CursorGuard(walk, after);
  for (;;) {
    const query = { ...options.query } as Q;
    if (options.limit !== undefined) query.limit = options.limit;
    if (after !== undefined) query.after = after;
    const { items, nextCursor } = readPage<T>(await fetchPage(query), walk);
    guard.page(items.length === 0 ? '' : pageIdentity(items), items.length === 0);
    const more = options.all && nextCursor !== null && items.length > 0 && nextCursor !== after;
    // Checked before the page is handed on: a page that leads back into the walk is not shown.
    if (more) guard.follow(nextCursor);
    yield { items, nextCursor };
    if (!more) return;
    after = nextCursor;
  }
}

/**
 * A page as the service sent it. An empty cursor means none. A body that is not a page (no `items`
 * array, a cursor that is not a string) is `invalid_response`, never read as an empty page: its
 * cursor, saved, would skip every event the page held (refunds never paid).
 */
export function readPage<T>(body: unknown, walk = 'the list'): Page<T> {
  const page = (typeof body === 'object' && body !== null ? body : {}) as { items?: unknown; nextCursor?: unknown };
  const cursor = page.nextCursor;
  if (!Array.isArray(page.items) || (cursor !== undefined && cursor !== null && typeof cursor !== 'string')) {
    const what = !Array.isArray(page.items) ? 'no items array' : `a nextCursor that is not a string (${typeof cursor})`;
    throw new UnavailableError(`${walk} answered a page with ${what}; it is not read as an empty page`, 'invalid_response');
  }
  return { items: page.items as T[], nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : null };
}
