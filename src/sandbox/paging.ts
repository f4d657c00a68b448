import type { FieldErrors } from './validate.js';
import { isUuid } from './validate.js';

/**
 * Cursors are opaque to clients but carry a position key (never an offset), so a page costs the
 * same however deep it is and stays right while records are added. Each cursor is tagged with the
 * list it belongs to and with the run that issued it; anything that does not decode to that list's
 * shape in this run is refused.
 */
export type CursorKind = 'campaigns' | 'links' | 'stores' | 'orders' | 'events';

export interface TimeKey {
  t: number;
  id: string;
}

export interface NameKey {
  name: string;
  id: string;
}

/**
 * Reads and writes the cursors of one sandbox run. Each cursor carries the run's tag: one that an
 * earlier run issued (restarted with the same seed on the same port) is not a cursor of this list.
 */
export class Cursors {
  constructor(private readonly run: string) {}

  private encode(kind: CursorKind, parts: (string | number)[]): string {
    return Buffer.from(JSON.stringify([kind, this.run, ...parts]), 'utf8').toString('base64url');
  }

  private decode(raw: string, kind: CursorKind): unknown[] | null {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) return null;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
      if (!Array.isArray(parsed) || parsed[0] !== kind || parsed[1] !== this.run) return null;
      return parsed.slice(2);
    } catch {
      return null;
    }
  }

  private readAfter<T>(query: URLSearchParams, errors: FieldErrors, kind: CursorKind, shape: (parts: unknown[]) => T | null): T | null {
    const raw = query.get('after');
    if (raw === null) return null;
    const parts = this.decode(raw, kind);
    const key = parts === null ? null : shape(parts);
    if (key === null) errors.add('after', 'invalid', 'after is not a cursor returned by this list in this sandbox run.');
    return key;
  }

  readTime(query: URLSearchParams, errors: FieldErrors, kind: CursorKind): TimeKey | null {
    return this.readAfter(query, errors, kind, (parts) =>
      parts.length === 2 && Number.isSafeInteger(parts[0]) && isUuid(parts[1]) ? { t: parts[0] as number, id: parts[1] } : null,
    );
  }

  readName(query: URLSearchParams, errors: FieldErrors, kind: CursorKind): NameKey | null {
    return this.readAfter(query, errors, kind, (parts) =>
      parts.length === 2 && typeof parts[0] === 'string' && isUuid(parts[1]) ? { name: parts[0], id: parts[1] } : null,
    );
  }

  readSeq(query: URLSearchParams, errors: FieldErrors): number | null {
    return this.readAfter(query, errors, 'events', (parts) =>
      parts.length === 1 && Number.isSafeInteger(parts[0]) && (parts[0] as number) >= 0 ? (parts[0] as number) : null,
    );
  }

  /** The feed's cursor after the event with sequence number `seq`. */
  seq(seq: number): string {
    return this.encode('events', [seq]);
  }

  /** The nextCursor of a newest-first page: the position of its last item, or null on the last page. */
  nextTime(kind: CursorKind, page: Page<{ createdAt: number; id: string }>): string | null {
    const last = page.continueAfter;
    return last === null ? null : this.encode(kind, [last.createdAt, last.id]);
  }

  /** The nextCursor of a page by name. */
  nextName(kind: CursorKind, page: Page<NameKey>): string | null {
    const last = page.continueAfter;
    return last === null ? null : this.encode(kind, [last.name, last.id]);
  }
}

export interface Page<T> {
  items: T[];
  /** The last item returned when more follow; null on the last page. */
  continueAfter: T | null;
}

function compareTime(a: { createdAt: number; id: string }, key: TimeKey): number {
  if (a.createdAt !== key.t) return a.createdAt - key.t;
  return a.id < key.id ? -1 : a.id > key.id ? 1 : 0;
}

/**
 * Newest-first page over records kept in creation order (ascending createdAt, unique because the
 * clock ticks strictly). The start is found by binary search, so a page costs O(log n + scanned).
 */
export function pageNewestFirst<T extends { createdAt: number; id: string }>(
  records: readonly T[],
  after: TimeKey | null,
  limit: number,
  accept: (record: T) => boolean,
): Page<T> {
  let index = records.length - 1;
  if (after !== null) {
    let low = 0;
    let high = records.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareTime(records[mid], after) < 0) low = mid + 1;
      else high = mid;
    }
    index = low - 1;
  }
  const items: T[] = [];
  for (; index >= 0; index--) {
    const record = records[index];
    if (!accept(record)) continue;
    if (items.length === limit) return { items, continueAfter: items[items.length - 1] };
    items.push(record);
  }
  return { items, continueAfter: null };
}

function compareByName(a: NameKey, b: NameKey): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A page of a small list sorted by name (campaigns, stores). */
export function pageByName<T extends NameKey>(records: readonly T[], after: NameKey | null, limit: number): Page<T> {
  const sorted = [...records].sort(compareByName);
  const start = after === null ? 0 : sorted.findIndex((r) => compareByName(r, after) > 0);
  const rest = start < 0 ? [] : sorted.slice(start);
  const items = rest.slice(0, limit);
  return { items, continueAfter: rest.length > limit ? items[items.length - 1] : null };
}
