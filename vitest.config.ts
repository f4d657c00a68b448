import { defineConfig } from 'vitest/config';

/**
 * The suite, one layer a folder (see test/<layer>/README.md): `npx vitest run test/unit` runs one.
 * The layers are one vitest project, so each source module is transformed once for the whole run
 * (a project per layer transformed src/ once per layer: a third of the suite's time). Threads start
 * faster and cost less than forks on 2 cores. Files share their modules (isolate: false: importing
 * svc once per worker, not once per file, is most of the commands layer's time); a file that mocks
 * a module (`vi.mock`) is named `*.isolated.test.ts` and runs in a module registry of its own, so
 * its mock reaches no other file.
 */
const ISOLATED = '**/*.isolated.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // Much of the suite waits on spawned processes, sockets and terminals rather than computing: a
    // third worker on this 2-core machine fills that idle time; a fourth measured no faster in a
    // full .ci/run (docs/performance.md).
    maxWorkers: 3,
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    projects: [
      // unit, http, sandbox, commands, e2e, pty, browser (the sandbox's web pages in Debian's
      // Chromium, one browser per file), mcp (`svc mcp` driven by the SDK's own client over stdio).
      { extends: true, test: { name: 'svc', include: ['test/*/**/*.test.ts'], exclude: [ISOLATED, 'test/helpers/**'], isolate: false } },
      { extends: true, test: { name: 'isolated', include: [`test/*/${ISOLATED}`], isolate: true } },
    ],
  },
});
