/**
 * One runner per ledger: the lock file beside the ledger (core/file-lock.ts). A lock left by a
 * killed runner is taken over at once; a live holder makes a newcomer wait briefly, then refuse: it
 * never pays.
 */
import { dirname } from 'node:path';
import { FailureError } from '../../core/errors.js';
import { acquireFileLock, type FileLock } from '../../core/file-lock.js';
import { ensureDirectory } from './ledger.js';

export type LedgerLock = FileLock;

export interface LockOptions {
  /** how long to wait for a live holder before refusing */
  waitMs: number;
  signal?: AbortSignal;
  /** told once when waiting starts */
  onWait?: (owner: string) => void;
}

export async function acquireLedgerLock(lockPath: string, options: LockOptions): Promise<LedgerLock> {
  await ensureDirectory(dirname(lockPath));
  return acquireFileLock(lockPath, {
    ...options,
    busy: (who) =>
      new FailureError(`another refunds run (${who}) holds the ledger; nothing was paid`, 'ledger_locked', `one runner per ledger: wait for it to finish, or stop it (lock file ${lockPath})`),
  });
}
