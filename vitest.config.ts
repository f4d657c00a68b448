import { defineConfig } from 'vitest/config';

/**
 * One project per test layer (see test/<layer>/README.md), so each can be run and timed alone:
 * `npx vitest run --project commands`. Threads start faster and cost less than forks on 2 cores.
 * Files share their modules (isolate: false: importing svc once per worker, not once per file, is
 * most of the commands layer's time); a file that mocks a module (`vi.mock`) is named
 * `*.isolated.test.ts` and runs in a module registry of its own, so its mock reaches no other file.
 */
const ISOLATED = '**/*.isolated.test.ts';
const layer = (name: string, test: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], exclude: [ISOLATED], isolate: false, ...test },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // Much of the suite waits on spawned processes, sockets and terminals rather than computing: a
    // third worker on this 2-core machine fills that idle time (52 s against 66 s with two).
    maxWorkers: 3,
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    projects: [
      layer('unit'),
      layer('http'),
      layer('sandbox'),
      layer('commands'),
      layer('e2e'),
      layer('pty'),
      // The sandbox's web pages in Debian's Chromium (test/browser/README.md): one browser per file.
      layer('browser'),
      // `svc mcp` driven by the SDK's own client over stdio (test/mcp/README.md).
      layer('mcp'),
      { extends: true as const, test: { name: 'isolated', include: [`test/*/${ISOLATED}`], isolate: true } },
    ],
  },
});
