/**
 * A lock between processes on one machine: an exclusive lock file (created with O_EXCL, never
 * through a link) holding the owner's pid, host and a random token. Used by the config store around
 * each read-modify-write, and by `refunds run` (one runner per ledger).
 *
 * A lock whose pid is dead on this host is stale (its holder was killed) and is taken over at once,
 * under a second short-lived O_EXCL file so two newcomers cannot both take it. A live holder makes a
 * newcomer wait (polling); once one holder has kept it `waitMs`, `busy(who)` is thrown. A lock that
 * passes from holder to holder is moving: the wait starts again with each new one.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { createExclusive, refuseSymlink } from './safe-file.js';
import { sleep } from './sleep.js';

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  since: string;
}

export interface FileLock {
  release(): Promise<void>;
}

export interface FileLockOptions {
  /** how long to wait for one live holder before giving up */
  waitMs: number;
  /** the error thrown when the wait is over; `who` names the holder (`pid 123`) */
  busy: (who: string) => Error;
  /** how often to look again (default 100 ms; a little random spread is added) */
  pollMs?: number;
  signal?: AbortSignal;
  /** told once when waiting starts */
  onWait?: (who: string) => void;
}

/** A takeover file older than this was left by a process killed mid-takeover. */
const TAKEOVER_STALE_MS = 5_000;
/** A lock file still empty after this was left by a process killed between create and write. */
const EMPTY_STALE_MS = 5_000;

/** Takes the lock at `lockPath` (its directory must exist). */
export async function acquireFileLock(lockPath: string, options: FileLockOptions): Promise<FileLock> {
  // Web Crypto's global: node:crypto loads when a lock is taken, not at start-up (docs/performance.md).
  const mine: LockOwner = { pid: process.pid, host: hostname(), token: crypto.randomUUID(), since: new Date().toISOString() };
  const pollMs = options.pollMs ?? 100;
  let deadline = Date.now() + options.waitMs;
  /** the holder waited on: while others come and go the lock is moving, and the wait starts again */
  let waitingOn: string | undefined;
  let told = false;
  // Known as this process's before the file exists: another caller in this process that reads the
  // lock between its creation and the return below must see a live holder, not a dead predecessor.
  heldTokens.add(mine.token);
  try {
    return await waitFor();
  } catch (error) {
    heldTokens.delete(mine.token);
    throw error;
  }

  async function waitFor(): Promise<FileLock> {
    for (;;) {
      if (await tryCreate(lockPath, mine)) {
        return {
          release: async () => {
            await release(lockPath, mine.token);
            heldTokens.delete(mine.token);
          },
        };
      }
      const held = await readOwner(lockPath);
      if (held.kind === 'gone') continue;
      if (held.kind === 'stale' || (held.kind === 'owner' && !(await isAlive(held.owner)))) {
        await takeOver(lockPath, held.text, pollMs);
        continue;
      }
      const who = held.kind === 'owner' ? `pid ${held.owner.pid}${held.owner.host === mine.host ? '' : ` on ${held.owner.host}`}` : 'a process starting up';
      const holder = held.kind === 'owner' ? held.text : held.kind;
      if (holder !== waitingOn) {
        waitingOn = holder;
        deadline = Date.now() + options.waitMs;
      }
      if (Date.now() >= deadline) throw options.busy(who);
      if (!told) {
        told = true;
        options.onWait?.(who);
      }
      await sleep(pollMs + Math.floor(Math.random() * pollMs), options.signal);
    }
  }
}

/** Runs `work` holding the lock; the lock is released however `work` ends. */
export async function withFileLock<T>(lockPath: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  const lock = await acquireFileLock(lockPath, options);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    // Exclusive and never through a link: a link planted at the lock is refused (exit 2), not waited on.
    handle = await createExclusive(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.write(JSON.stringify(owner));
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
    refuseSymlink(lockPath);
    [text, ageMs] = await Promise.all([fs.readFile(lockPath, 'utf8'), fs.lstat(lockPath).then((s) => Date.now() - s.mtimeMs)]);
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

/** Tokens of the locks this process holds: the same pid with another token is a dead predecessor's. */
const heldTokens = new Set<string>();

/**
 * Whether the lock's owner still runs. A holder on another host cannot be checked from here: it
 * counts as alive. A pid reused since the lock was taken (a process younger than the lock) is dead.
 */
async function isAlive(owner: LockOwner): Promise<boolean> {
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return heldTokens.has(owner.token);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const started = await processStartMs(owner.pid);
  const since = Date.parse(owner.since);
  return started === undefined || Number.isNaN(since) || started <= since + PID_REUSE_SLACK_MS;
}

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ, 100 on every mainstream build). */
const USER_HZ = 100;
// Generous, so a wall-clock step after the lock was taken never makes a live holder look reused.
const PID_REUSE_SLACK_MS = 60_000;

/** When a process started (Linux /proc), or undefined where that cannot be read. */
async function processStartMs(pid: number): Promise<number | undefined> {
  try {
    const [stat, system] = await Promise.all([fs.readFile(`/proc/${pid}/stat`, 'utf8'), fs.readFile('/proc/stat', 'utf8')]);
    // Fields after the command name (which may hold spaces) start at ")"; starttime is field 22.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(system)?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return undefined;
    return bootSeconds * 1000 + (startTicks / USER_HZ) * 1000;
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock, but only the one judged stale: under the takeover file, the lock is read
 * again and removed only if it is still the same dead owner's (a faster newcomer may own it by now).
 */
async function takeOver(lockPath: string, staleText: string, pollMs: number): Promise<void> {
  const takeoverPath = `${lockPath}.takeover`;
  let handle: fs.FileHandle;
  try {
    handle = await createExclusive(takeoverPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = await fs.stat(takeoverPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > TAKEOVER_STALE_MS) await fs.rm(takeoverPath, { force: true });
    else await sleep(Math.max(1, pollMs / 2));
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
