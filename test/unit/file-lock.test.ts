/**
 * The lock between processes (src/core/file-lock.ts) that the config store and the refund runner
 * share: read-modify-writes under it never lose an update; a holder makes others wait; a lock left
 * by a dead process is taken over at once; a live holder past the wait is the caller's error.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFileLock, withFileLock } from '../../src/core/file-lock.js';
import { tempDir } from '../helpers/cleanup.js';

const busy = (who: string) => new Error(`busy: ${who}`);

describe('file lock', () => {
  it('20 read-modify-writes at once, each yielding between read and write: all 20 kept', async () => {
    const dir = tempDir();
    const counter = join(dir, 'counter');
    writeFileSync(counter, '0');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(join(dir, 'counter.lock'), { waitMs: 10_000, pollMs: 2, busy }, async () => {
          const value = Number(readFileSync(counter, 'utf8'));
          await new Promise((resolve) => setImmediate(resolve));
          writeFileSync(counter, String(value + 1));
        }),
      ),
    );
    expect(readFileSync(counter, 'utf8')).toBe('20');
    expect(existsSync(join(dir, 'counter.lock'))).toBe(false);
  });

  it('a live holder past the wait: the caller\'s busy error naming it, the holder\'s lock untouched', async () => {
    const lockPath = join(tempDir(), 'x.lock');
    const held = await acquireFileLock(lockPath, { waitMs: 0, busy });
    const before = readFileSync(lockPath, 'utf8');
    let told = '';
    await expect(acquireFileLock(lockPath, { waitMs: 30, pollMs: 5, busy, onWait: (who) => (told = who) })).rejects.toThrow(`busy: pid ${process.pid}`);
    expect(told).toBe(`pid ${process.pid}`);
    expect(readFileSync(lockPath, 'utf8')).toBe(before);
    await held.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('a lock left by a dead process (or a dead predecessor of this pid) is taken over at once', async () => {
    const dir = tempDir();
    for (const pid of [2 ** 22 + 1, process.pid]) {
      const lockPath = join(dir, `${pid}.lock`);
      writeFileSync(lockPath, JSON.stringify({ pid, host: hostname(), token: 'dead', since: '2000-01-01T00:00:00.000Z' }));
      const lock = await acquireFileLock(lockPath, { waitMs: 0, busy });
      expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
      await lock.release();
    }
  });

  it('release after the lock was taken over leaves the new holder\'s lock', async () => {
    const lockPath = join(tempDir(), 'y.lock');
    const first = await acquireFileLock(lockPath, { waitMs: 0, busy });
    const other = JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone-else', since: new Date().toISOString() });
    writeFileSync(lockPath, other);
    await first.release();
    expect(readFileSync(lockPath, 'utf8')).toBe(other);
  });
});
