/**
 * Runs before every test file. The temp directory is the run's own (from global-setup.ts), so
 * whatever a test leaves there is found; each file's temp dirs, servers and doubles are closed after
 * it; an API double is checked after each test (no unexpected request, no scripted answer unused).
 */
import { afterAll, afterEach, inject } from 'vitest';
import { checkDoubles } from './double.js';
import { cleanUp } from './cleanup.js';

const runTmpDir = inject('runTmpDir');
if (runTmpDir) process.env.TMPDIR = runTmpDir;

afterEach(() => checkDoubles('test'));
afterAll(async () => {
  try {
    checkDoubles('file');
  } finally {
    await cleanUp();
  }
});
