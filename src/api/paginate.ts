/**
 * The one pagination loop, shared by every list command, `--all`, `events tail` and `api --paginate`.
 * It follows `nextCursor` and stops on a null cursor or on an empty page (a service may hand out a
 * cursor with an empty last page; following it forever would never end).
 */
import type { ApiClient, ApiResponse, Query } from './client.js';

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
  return follow<Q, T>(async (query) => (await list(client, query, { signal: options.signal })).body, options);
}

/** Every page under a path the caller names (`svc api --paginate`). */
export function pages<T>(client: ApiClient, path: string, options: PageOptions = {}): AsyncGenerator<Page<T>> {
  return follow<Query, T>((query) => client.get<unknown>(path, { query, signal: options.signal }), options);
}

async function* follow<Q extends PageQuery, T>(
  fetchPage: (query: Q) => Promise<unknown>,
  options: Omit<PageOptions, 'query'> & { query?: object },
): AsyncGenerator<Page<T>> {
  let after = options.after;
  for (;;) {
    const query = { ...options.query } as Q;
    if (options.limit !== undefined) query.limit = options.limit;
    if (after !== undefined) query.after = after;
    const { items, nextCursor } = readPage<T>(await fetchPage(query));
    yield { items, nextCursor };
    if (!options.all || nextCursor === null || items.length === 0 || nextCursor === after) return;
    after = nextCursor;
  }
}

/** A page as the service sent it, read defensively: no items array means none, an empty cursor means none. */
export function readPage<T>(body: unknown): Page<T> {
  const page = (body ?? {}) as Partial<Page<T>>;
  return {
    items: Array.isArray(page.items) ? page.items : [],
    nextCursor: typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : null,
  };
}
