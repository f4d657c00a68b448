/**
 * What a test file leaves behind, removed after it even when a test fails: temp directories and
 * anything with a close() (servers, sandboxes, API doubles). test/helpers/setup.ts runs the hooks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const directories = new Set<string>();
const closers = new Set<() => Promise<void> | void>();

/** A fresh directory under the temp directory, removed after the test file. */
export function tempDir(prefix = 'svc-test-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  directories.add(directory);
  return directory;
}

/** Runs `close` after the test file (when the test did not already); returns a remover. */
export function closeLater(close: () => Promise<void> | void): () => void {
  closers.add(close);
  return () => closers.delete(close);
}

export async function cleanUp(): Promise<void> {
  const pending = [...closers];
  closers.clear();
  const results = await Promise.allSettled(pending.map(async (close) => close()));
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  directories.clear();
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
