/**
 * Runs before every test file. The temp directory is the run's own (from global-setup.ts), so
 * whatever a test leaves there is found (processes the tests start inherit this environment); each
 * file's temp dirs, servers and doubles are closed after it; an API double is checked after each
 * test (no unexpected request, no scripted answer unused).
 */
import { afterAll, afterEach, inject } from 'vitest';
import { checkDoubles } from './double.js';
import { cleanUp } from './cleanup.js';

const runTmpDir = inject('runTmpDir');
if (runTmpDir) process.env.TMPDIR = runTmpDir;
// The suite talks to loopback over plain HTTP (the proxy test gives its processes a CA of its own):
// a machine-wide NODE_EXTRA_CA_CERTS would only make every Node process a test starts read that
// bundle first, about 60 ms of processor time each on this machine.
delete process.env.NODE_EXTRA_CA_CERTS;

afterEach(() => checkDoubles('test'));
afterAll(async () => {
  try {
    checkDoubles('file');
  } finally {
    await cleanUp();
  }
});
