/**
 * No walk runs forever on a server's say-so. Every walk over a cursor-paged list (`--all`, `api
 * --paginate`, `events tail`, `inspect`, `refunds`) keeps one guard: handed a cursor it already
 * followed (A→B→A), or a page identical to the one before, the walk stops with `cursor_loop` (exit 5)
 * before anything of that page is shown.
 *
 * Memory is bounded however long the walk (a `--follow` runs for weeks): the guard keeps a 128-bit
 * digest of each of the last RECENT cursors (any loop up to that length is caught at its first
 * repeat), and, for longer loops, one checkpoint moved by Brent's cycle detection (a loop of any
 * length is caught within three times its length and lead-in), plus the digest of the previous page.
 */
import { createHash } from 'node:crypto';
import { UnavailableError } from '../core/errors.js';

/** How many recent cursors are remembered exactly. */
const RECENT = 10_000;
/** How much of a hostile cursor is shown in the message. */
const SHOWN = 60;

export class CursorLoopError extends UnavailableError {
  override readonly transient = false;

  constructor(detail: string) {
    super(detail, 'cursor_loop', undefined, 'the service handed back a page or cursor it already gave; nothing of that page was used');
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64').slice(0, 22);
}

function shown(cursor: string): string {
  return JSON.stringify(cursor.length > SHOWN ? `${cursor.slice(0, SHOWN)}…` : cursor);
}

export class CursorGuard {
  private readonly recent = new Set<string>();
  /** Brent: a cursor of the walk, moved to the current one each time `steps` reaches `power` */
  private checkpoint?: string;
  private power = 1;
  private steps = 0;
  private previousPage?: string;
  private pages = 0;

  /** `what`: the walk, for the message (`GET /events`); `start`: the cursor it starts after. */
  constructor(
    private readonly what: string,
    start?: string | null,
  ) {
    if (start) this.remember(digest(start));
  }

  /**
   * A page arrived (its items as text, e.g. their JSON): a non-empty page identical to the previous
   * non-empty one is a loop. Empty pages (caught up, polling) are never compared.
   */
  page(itemsText: string, empty: boolean): void {
    this.pages++;
    if (empty) return;
    const key = digest(itemsText);
    if (key === this.previousPage) {
      throw new CursorLoopError(`${this.what} returned the same page twice in a row (page ${this.pages}); stopping, the walk would never end`);
    }
    this.previousPage = key;
  }

  /** The walk moves on to `cursor` (one it is not at already): a cursor followed before is a loop. */
  follow(cursor: string): void {
    const key = digest(cursor);
    if (this.recent.has(key) || key === this.checkpoint) {
      throw new CursorLoopError(`${this.what} handed back cursor ${shown(cursor)}, which this walk already followed (page ${this.pages}); stopping, the walk would never end`);
    }
    this.remember(key);
    if (++this.steps >= this.power) {
      this.checkpoint = key;
      this.power *= 2;
      this.steps = 0;
    }
  }

  private remember(key: string): void {
    this.recent.add(key);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.values().next().value!);
  }
}

/**
 * What identifies a page for the identical-page check: its items' ids where every item has a string
 * id (every resource of the API has one; a list never repeats a record on the next page), else the
 * items as JSON. Reading ids costs far less than serialising a page of 100 records again.
 */
export function pageIdentity(items: readonly unknown[]): string {
  const ids: string[] = [];
  for (const item of items) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return JSON.stringify(items);
    ids.push(id);
  }
  return ids.join('\n');
}
