/**
 * Gives the run a temp directory of its own (tests and the processes they spawn inherit it as
 * TMPDIR) and fails the run when anything is left in it at the end: every test cleans up after
 * itself, even when it fails. The directory itself is removed either way.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    runTmpDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const runTmpDir = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
  project.provide('runTmpDir', runTmpDir);
  return () => {
    // <tmpdir>/node-compile-cache holds Node's compiled code (bin/svc.js, npm and npx turn it on): a
    // shared cache, not something a test left behind.
    const left = readdirSync(runTmpDir).filter((name) => name !== 'node-compile-cache');
    rmSync(runTmpDir, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest prints an error thrown here but still exits 0: fail the run explicitly.
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} entries in the temp directory: ${left.slice(0, 10).join(', ')}`);
    }
  };
}
