/** Which events `events tail` shows: `--type` and the record filters, and the `-n` window over the catch-up. */
import { FEED_EVENT_TYPES, type SvcEvent } from '../../api/types.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { parseTimestamp } from '../../core/time.js';

export interface EventFilters {
  types?: readonly string[];
  /** data.id of a personal_link.* event */
  linkId?: string;
  /** data.id of an order.* event */
  orderId?: string;
  /** data.brandId */
  brandId?: string;
  /** data.campaignId */
  campaignId?: string;
  /** occurredAt at or after this, epoch microseconds (see core/time.ts) */
  sinceMicros?: number;
}

/** Whether the filters leave no event out (none given). */
export function filtersNothing(filters: EventFilters): boolean {
  const { types, ...rest } = filters;
  return (types ?? []).length === 0 && Object.values(rest).every((value) => value === undefined);
}

/**
 * All the given filters must hold. `--link` and `--order` name one record each, so either matching
 * is enough when both are given. An event without a readable occurredAt is kept by --since: an
 * unknown shape is shown, never dropped silently.
 */
export function eventFilter(filters: EventFilters): (event: SvcEvent | undefined) => boolean {
  const typeOk = typeFilter(filters.types);
  const ids: [string, string][] = [];
  if (filters.linkId !== undefined) ids.push(['personal_link.', filters.linkId.toLowerCase()]);
  if (filters.orderId !== undefined) ids.push(['order.', filters.orderId.toLowerCase()]);
  return (event) => {
    if (!typeOk(event?.type)) return false;
    const data = (event?.data ?? {}) as Record<string, unknown>;
    if (ids.length > 0 && !ids.some(([prefix, id]) => String(event?.type ?? '').startsWith(prefix) && lower(data.id) === id)) return false;
    if (filters.brandId !== undefined && lower(data.brandId) !== filters.brandId.toLowerCase()) return false;
    if (filters.campaignId !== undefined && lower(data.campaignId) !== filters.campaignId.toLowerCase()) return false;
    if (filters.sinceMicros !== undefined) {
      const at = parseTimestamp(event?.occurredAt);
      if (at !== undefined && at < filters.sinceMicros) return false;
    }
    return true;
  };
}

function lower(value: unknown): string | undefined {
  return typeof value === 'string' ? value.toLowerCase() : undefined;
}

/**
 * `--type` values: an exact type, a prefix ending in `.` (`order.`) or `.*` (`order.*`), or a bare
 * group (`order`, meaning `order.`). No filters shows every event, unknown types included.
 */
export function typeFilter(types: readonly string[] | undefined): (type: unknown) => boolean {
  const wanted = (types ?? []).map((type) => type.trim()).filter((type) => type !== '');
  if (wanted.length === 0) return () => true;
  return (type) =>
    typeof type === 'string' &&
    wanted.some((want) => {
      const prefix = want.endsWith('.*') ? want.slice(0, -1) : want.endsWith('.') ? want : null;
      return prefix !== null ? type.startsWith(prefix) : type === want || type.startsWith(`${want}.`);
    });
}

/** The last `capacity` items pushed, in order; memory stays bounded however long the catch-up. */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    if (this.capacity === 0) return;
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  /** The kept items, oldest first. */
  toArray(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
}

/**
 * `--type` values that match no event type of the description (neither a type nor a prefix of one,
 * such as `order.canceled`): one warning each on stderr, naming the nearest known type. The filter
 * still runs as given: a newer service may send types this svc does not know.
 */
export function warnUnknownTypes(types: readonly string[] | undefined, warn: (line: string) => void): void {
  for (const given of types ?? []) {
    const want = given.trim();
    if (want === '' || FEED_EVENT_TYPES.some((type) => typeFilter([want])(type))) continue;
    const nearest = [...FEED_EVENT_TYPES].sort((a, b) => editDistance(want, a) - editDistance(want, b))[0];
    warn(`warning: --type ${terminalSafeLine(want)} matches no known event type; did you mean ${nearest}? (filtering anyway)`);
  }
}

/** Levenshtein distance, bounded input (a flag value), one row of memory. */
function editDistance(a: string, b: string): number {
  const left = a.slice(0, 200);
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= left.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (left[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
