/**
 * One runner per ledger: an exclusive lock file (created with O_EXCL) holding the owner's pid, host
 * and a random token. A lock whose pid is dead on this host is stale (the runner was killed) and is
 * taken over at once, under a second short-lived O_EXCL file so two newcomers cannot both take it.
 * A live holder makes a newcomer wait briefly, then refuse: it never pays.
 */
import { randomUUID } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { FailureError } from '../../core/errors.js';
import { sleep } from '../../core/sleep.js';
import { ensureDirectory } from './ledger.js';

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  since: string;
}

export interface LedgerLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** how long to wait for a live holder before refusing */
  waitMs: number;
  signal?: AbortSignal;
  /** told once when waiting starts */
  onWait?: (owner: string) => void;
}

const POLL_MS = 100;
/** A takeover file older than this was left by a process killed mid-takeover. */
const TAKEOVER_STALE_MS = 5_000;
/** A lock file still empty after this was left by a process killed between create and write. */
const EMPTY_STALE_MS = 5_000;

export async function acquireLedgerLock(lockPath: string, options: LockOptions): Promise<LedgerLock> {
  await ensureDirectory(dirname(lockPath));
  const mine: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), since: new Date().toISOString() };
  const deadline = Date.now() + options.waitMs;
  let told = false;
  for (;;) {
    if (await tryCreate(lockPath, mine)) return { release: () => release(lockPath, mine.token) };
    const held = await readOwner(lockPath);
    if (held.kind === 'gone') continue;
    if (held.kind === 'stale' || (held.kind === 'owner' && !isAlive(held.owner))) {
      await takeOver(lockPath, held.text);
      continue;
    }
    const who = held.kind === 'owner' ? `pid ${held.owner.pid}${held.owner.host === mine.host ? '' : ` on ${held.owner.host}`}` : 'a process starting up';
    if (Date.now() >= deadline) {
      throw new FailureError(
        `another refunds run (${who}) holds the ledger; nothing was paid`,
        'ledger_locked',
        `one runner per ledger: wait for it to finish, or stop it (lock file ${lockPath})`,
      );
    }
    if (!told) {
      told = true;
      options.onWait?.(who);
    }
    await sleep(POLL_MS, options.signal);
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.write(JSON.stringify(owner));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

type Held = { kind: 'gone' } | { kind: 'stale'; text: string } | { kind: 'starting' } | { kind: 'owner'; owner: LockOwner; text: string };

async function readOwner(lockPath: string): Promise<Held> {
  let text: string;
  let ageMs: number;
  try {
    [text, ageMs] = await Promise.all([fs.readFile(lockPath, 'utf8'), fs.stat(lockPath).then((s) => Date.now() - s.mtimeMs)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (Number.isInteger(owner.pid) && typeof owner.host === 'string') return { kind: 'owner', owner, text };
  } catch {
    // empty or half-written: its writer is starting up, or was killed doing so
  }
  return ageMs > EMPTY_STALE_MS ? { kind: 'stale', text } : { kind: 'starting' };
}

/** A holder on another host cannot be checked from here: it counts as alive. */
function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock, but only the one judged stale: under the takeover file, the lock is read
 * again and removed only if it is still the same dead owner's (a faster newcomer may own it by now).
 */
async function takeOver(lockPath: string, staleText: string): Promise<void> {
  const takeoverPath = `${lockPath}.takeover`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(takeoverPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = await fs.stat(takeoverPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > TAKEOVER_STALE_MS) await fs.rm(takeoverPath, { force: true });
    else await sleep(POLL_MS / 2);
    return;
  }
  try {
    const current = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
    if (current === staleText) await fs.rm(lockPath, { force: true });
  } finally {
    await handle.close();
    await fs.rm(takeoverPath, { force: true });
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const text = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  try {
    if ((JSON.parse(text) as LockOwner).token === token) await fs.rm(lockPath, { force: true });
  } catch {
    // not ours
  }
}
