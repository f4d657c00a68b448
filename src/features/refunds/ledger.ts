/**
 * The refund ledger: an append-only JSON-lines file, one line per refunded orderId, and the refund
 * cursor kept beside it. The ledger is the record of money paid, so it is never rewritten: each
 * record is one `write` to a file opened with O_APPEND, made durable (fsync) before the caller goes
 * on. A crash can leave a torn last line; readers ignore it (and say so once), and the next append
 * starts on a fresh line. The cursor file is small and replaced atomically (temp file, fsync, rename).
 * Neither is ever opened through a symbolic link (core/safe-file.ts): a planted link is exit 2.
 */
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Context } from '../../app/context.js';
import { openNoFollow, refuseSymlink, replaceFile, syncDirectory } from '../../core/safe-file.js';
import { explainRefusedCursor } from '../../api/cursor-refusal.js';
import type { ApiError } from '../../core/errors.js';
import { nextPageCommand } from '../list.js';

export interface LedgerEntry {
  orderId: string;
  /** decimal string, null when a refund marked by hand had no known price */
  coinPrice: string | null;
  /** the order's currency as the API gave it ({name, symbol}), or null */
  currency: unknown;
  /** the order.cancelled event that made it due; null when marked by hand without one */
  eventId: string | null;
  refundedAt: string;
}

export interface LedgerPlace {
  /** the ledger file */
  path: string;
  /** the refund cursor, beside the ledger */
  cursorPath: string;
  /** the runner lock, beside the ledger */
  lockPath: string;
  /** the base URL whose feed the cursor belongs to */
  baseUrl: string;
}

/** Where this profile's and base URL's ledger lives: `--ledger FILE`, else the config directory. */
export async function ledgerPlace(ctx: Context, ledgerFlag: string | undefined): Promise<LedgerPlace> {
  const profile = await ctx.profile();
  let path: string;
  if (ledgerFlag !== undefined && ledgerFlag.trim() !== '') {
    path = ledgerFlag;
  } else {
    const config = await ctx.config();
    // One file per profile and base URL; the hash keeps names short and distinct whatever the URL.
    const digest = createHash('sha256').update(`${profile.name}\n${profile.baseUrl}`).digest('hex').slice(0, 12);
    const safeName = profile.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
    path = join(config.directory, 'refunds', `${safeName}-${digest}.jsonl`);
  }
  return { path, cursorPath: `${path}.cursor`, lockPath: `${path}.lock`, baseUrl: profile.baseUrl };
}

/**
 * A ledger line as read back: the orderId must be there (any non-empty string: an id the service
 * sent in another shape must still count as paid); other fields are kept as written.
 */
function parseEntry(line: string): LedgerEntry | undefined {
  try {
    const value = JSON.parse(line) as Partial<LedgerEntry> | null;
    if (!value || typeof value !== 'object' || typeof value.orderId !== 'string' || value.orderId === '') return undefined;
    return {
      orderId: value.orderId,
      coinPrice: typeof value.coinPrice === 'string' ? value.coinPrice : null,
      currency: value.currency ?? null,
      eventId: typeof value.eventId === 'string' ? value.eventId : null,
      refundedAt: typeof value.refundedAt === 'string' ? value.refundedAt : '',
    };
  } catch {
    return undefined;
  }
}

/** Reads 1 MiB at a time: a long ledger costs bounded memory per read besides the ids it holds. */
const CHUNK = 1 << 20;

export class Ledger {
  /** every orderId recorded, with its first entry, in file order */
  private readonly entries = new Map<string, LedgerEntry>();
  /** bytes read and parsed so far (always at a line start) */
  private offset = 0;
  private handle?: fs.FileHandle;
  /** damage (a torn or unreadable line) is reported once per run: a torn line, once repaired, reads as unreadable */
  private damageReported = false;

  constructor(
    readonly path: string,
    private readonly warn: (line: string) => void,
  ) {}

  has(orderId: string): boolean {
    return this.entries.has(orderId.toLowerCase());
  }

  list(): LedgerEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Reads what was appended since the last read (all of it the first time), so a runner sees
   * refunds another process (`refunds mark`) recorded meanwhile. A missing file is an empty ledger.
   */
  async refresh(): Promise<void> {
    let file: fs.FileHandle;
    try {
      // The record of money paid is read only from a regular file: a link could show another ledger.
      file = await openNoFollow(this.path, constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let unreadable = 0;
    try {
      const { size } = await file.stat();
      let carry = Buffer.alloc(0);
      let position = this.offset;
      while (position < size) {
        const buffer = Buffer.alloc(Math.min(CHUNK, size - position));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        let data = Buffer.concat([carry, buffer.subarray(0, bytesRead)]);
        let newline: number;
        while ((newline = data.indexOf(0x0a)) >= 0) {
          const line = data.subarray(0, newline).toString('utf8').trim();
          data = data.subarray(newline + 1);
          this.offset += newline + 1;
          if (line === '') continue;
          const entry = parseEntry(line);
          if (entry === undefined) unreadable++;
          else if (!this.entries.has(entry.orderId.toLowerCase())) this.entries.set(entry.orderId.toLowerCase(), entry);
        }
        carry = data;
      }
      // Bytes after the last line break: a record torn by a crash (or one being written right now).
      // It stays unread, so it is looked at again next time; it is never taken as a record.
      if (carry.length > 0 && carry.toString('utf8').trim() !== '' && !this.damageReported) {
        this.damageReported = true;
        this.warn(`note: ledger ${this.path}: ignoring a torn last line (a write cut off by a crash); the next record starts on a fresh line`);
      }
    } finally {
      await file.close();
    }
    if (unreadable > 0 && !this.damageReported) {
      this.damageReported = true;
      this.warn(`note: ledger ${this.path}: ${unreadable} unreadable ${unreadable === 1 ? 'line' : 'lines'} ignored (left by an interrupted write)`);
    }
  }

  /** Appends one record and returns once it is on disk (fsync; the directory too when the file is new). */
  async append(entry: LedgerEntry): Promise<void> {
    const created = await this.open();
    const handle = this.handle as fs.FileHandle;
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    // One write of the whole line: with O_APPEND it lands at the end, whole, even beside another writer.
    await handle.write(`${prefix}${JSON.stringify(entry)}\n`);
    await handle.sync();
    if (created) await syncDirectory(dirname(this.path));
    this.entries.set(entry.orderId.toLowerCase(), entry);
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  /** Opens for appending (O_APPEND | O_CREAT, mode 0600); true when this created the file. */
  private async open(): Promise<boolean> {
    if (this.handle) return false;
    await ensureDirectory(dirname(this.path));
    let created = false;
    try {
      this.handle = await openNoFollow(this.path, constants.O_RDWR | constants.O_APPEND);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      try {
        this.handle = await openNoFollow(this.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
        created = true;
      } catch (again) {
        // Another process created it between the two opens: append to theirs (a link there is refused).
        if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
        this.handle = await openNoFollow(this.path, constants.O_RDWR | constants.O_APPEND);
      }
    }
    return created;
  }
}

/** The directory of a ledger: created 0700 when missing (the config directory's own rule). */
export async function ensureDirectory(directory: string): Promise<void> {
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
}

interface CursorFile {
  baseUrl: string;
  cursor: string;
  /** when the last event the cursor passed occurred (gap.ts: has the feed dropped what came after?) */
  lastEventAt?: string;
}

/** The refund cursor for this base URL; undefined (start of the feed) when none is saved or readable. */
export async function readRefundCursor(place: LedgerPlace, warn: (line: string) => void): Promise<string | undefined> {
  let text: string;
  try {
    refuseSymlink(place.cursorPath);
    text = await fs.readFile(place.cursorPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const saved = JSON.parse(text) as Partial<CursorFile>;
    if (typeof saved.cursor === 'string' && saved.cursor !== '' && saved.baseUrl === place.baseUrl) return saved.cursor;
    if (typeof saved.cursor === 'string' && saved.baseUrl !== place.baseUrl) {
      warn(`note: ${basename(place.cursorPath)} belongs to another base URL; reading the feed from the start (the ledger still holds)`);
      return undefined;
    }
  } catch {
    // Fall through: an unreadable cursor only costs a longer read; the ledger prevents repeats.
  }
  warn(`note: refund cursor ${place.cursorPath} is unreadable; reading the feed from the start (the ledger still holds)`);
  return undefined;
}

/** When the last event the saved refund cursor passed occurred; undefined when not recorded. */
export async function readRefundCursorEventAt(place: LedgerPlace): Promise<string | undefined> {
  try {
    refuseSymlink(place.cursorPath);
    const saved = JSON.parse(await fs.readFile(place.cursorPath, 'utf8')) as Partial<CursorFile>;
    return saved.baseUrl === place.baseUrl && typeof saved.lastEventAt === 'string' ? saved.lastEventAt : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the refund cursor atomically: a kill leaves the old cursor or the new one, never half.
 * The temp file is exclusive with a random name (safe-file.ts); a link at the cursor is refused.
 */
export async function writeRefundCursor(place: LedgerPlace, cursor: string, lastEventAt?: string): Promise<void> {
  await ensureDirectory(dirname(place.cursorPath));
  const body: CursorFile = { baseUrl: place.baseUrl, cursor, ...(lastEventAt ? { lastEventAt } : {}) };
  await replaceFile(place.cursorPath, `${JSON.stringify(body)}\n`, { mode: 0o600 });
}

/**
 * The service refused the saved refund cursor: it belongs to another feed (a restarted sandbox).
 * Told with the commands that start over; the ledger still holds, so nothing is paid twice.
 */
export function refundCursorRefused(ctx: Context, place: LedgerPlace, error: ApiError, flags: { ledger?: string; exec?: string }): ApiError {
  const look = nextPageCommand('svc refunds due --from-start', ctx.givenGlobals, { '--ledger': flags.ledger });
  const pay = flags.exec === undefined
    ? `${nextPageCommand('svc refunds run --from-start', ctx.givenGlobals, { '--ledger': flags.ledger })} --exec …`
    : nextPageCommand('svc refunds run --from-start', ctx.givenGlobals, { '--ledger': flags.ledger, '--exec': flags.exec });
  return explainRefusedCursor(error, `the refund cursor ${place.cursorPath}`, `${look} to look, ${pay} to pay (the ledger still holds: nothing is paid twice)`);
}
