/**
 * The one way svc writes a file it keeps (config, saved cursors, refund ledger and cursor, lock,
 * `webhooks listen --save-dir` files), safe against a hostile local user:
 * - never through a symbolic link: a link at the target is refused (exit 2, naming the path, nothing
 *   written), and every open carries O_NOFOLLOW, so a link planted between the check and the open
 *   fails the open instead of being followed;
 * - a replaced file is written to a temporary file beside its target, created exclusively (O_EXCL:
 *   never an existing file, never a link) under an unpredictable name (crypto random), synced, then
 *   renamed over the target; a failed write leaves the target as it was and removes the temp file.
 */
import { constants, lstatSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from './errors.js';

/** O_NOFOLLOW where the platform has it (not on Windows, where the lstat check stands alone). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file svc would write is a symbolic link (or became one under it): exit 2, nothing written. */
export class SymlinkRefusedError extends UsageError {
  constructor(readonly path: string) {
    super(`${path} is a symbolic link; svc never writes through a link (nothing was written; replace the link with a regular file or remove it)`);
  }
}

/**
 * A fifo, socket, device or directory where svc keeps a file: opening a fifo would wait forever for
 * a writer (no signal ends it), so it is refused like a link (exit 2, nothing read or written).
 */
class NotRegularFileError extends UsageError {
  constructor(readonly path: string) {
    super(`${path} is not a regular file (a fifo, socket, device or directory); svc reads and writes only regular files there (nothing was written; remove it)`);
  }
}

/**
 * Throws SymlinkRefusedError when `path` is a symbolic link, NotRegularFileError when it is anything
 * else but a regular file; a missing path is fine.
 */
export function refuseSymlink(path: string): void {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (stats.isSymbolicLink()) throw new SymlinkRefusedError(path);
  if (!stats.isFile()) throw new NotRegularFileError(path);
}

/** ELOOP from an O_NOFOLLOW open (or EEXIST from O_EXCL on a link) means a link was there. */
function linkError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ELOOP' || code === 'EMLINK') return new SymlinkRefusedError(path);
  return error;
}

/**
 * Opens `path` with `flags` (numeric open flags) plus O_NOFOLLOW, after refusing a link there.
 * The caller's flags decide creation, appending and exclusivity.
 */
export async function openNoFollow(path: string, flags: number, mode = 0o600): Promise<FileHandle> {
  refuseSymlink(path);
  let handle: FileHandle;
  try {
    // Non-blocking, so a fifo swapped in after the check cannot hold the open (no effect on a regular file).
    handle = await open(path, flags | NOFOLLOW | NONBLOCK, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === 'ENXIO') throw new NotRegularFileError(path);
    throw linkError(path, error);
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new NotRegularFileError(path);
  }
  return handle;
}

/**
 * Creates `path` exclusively (O_CREAT | O_EXCL: fails with EEXIST when anything, a link included,
 * is there). A link there is refused as a link (exit 2), not taken for an existing file.
 */
export async function createExclusive(path: string, mode = 0o600): Promise<FileHandle> {
  try {
    return await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuseSymlink(path);
    throw linkError(path, error);
  }
}

/**
 * Creates `path` exclusively when the name is free; undefined when anything is there already — a
 * file, a link (never followed: O_EXCL with O_NOFOLLOW), a fifo, a directory. For a caller that
 * simply takes the next name.
 */
export async function createIfFree(path: string, mode = 0o600): Promise<FileHandle | undefined> {
  try {
    return await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP' || code === 'EISDIR') return undefined;
    throw error;
  }
}

/** A temporary name beside `path` that nobody can guess: `.<name>.<16 random hex>.tmp` (Web Crypto's global: node:crypto loads when a name is made, not at start-up). */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex')}.tmp`);
}

export interface ReplaceOptions {
  /** mode of the new file (default 0600) */
  mode?: number;
  /** fsync the file and its directory (default true): the new content survives a power cut */
  durable?: boolean;
}

/**
 * Replaces `path` with `content` atomically: a reader (or a kill) sees the old file or the new one,
 * never half. Refuses a link at `path`; the temporary file is exclusive, random and beside it.
 */
export async function replaceFile(path: string, content: string | Uint8Array, options: ReplaceOptions = {}): Promise<void> {
  refuseSymlink(path);
  const durable = options.durable ?? true;
  // A name taken by chance (or planted) is never reused: another random name is tried.
  let temp = '';
  let handle: FileHandle | undefined;
  for (let attempt = 0; handle === undefined; attempt++) {
    temp = tempNameFor(path);
    try {
      handle = await createExclusive(temp, options.mode ?? 0o600);
    } catch (error) {
      if (attempt >= 4 || !(error instanceof SymlinkRefusedError || (error as NodeJS.ErrnoException).code === 'EEXIST')) throw error;
    }
  }
  try {
    try {
      await handle.writeFile(content);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    // Checked again just before the rename: rename replaces a link itself (never writes through it),
    // but a link that appeared meanwhile is still someone's plan, so nothing is written.
    refuseSymlink(path);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (durable) await syncDirectory(dirname(path));
}

/** Makes a directory entry durable (a created or renamed file survives a power cut). */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the data itself is already synced.
  } finally {
    await handle?.close();
  }
}
