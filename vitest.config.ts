import { defineConfig } from 'vitest/config';

/**
 * One project per test layer (see test/<layer>/README.md), so each can be run and timed alone:
 * `npx vitest run --project commands`. Threads start faster and cost less than forks on 2 cores.
 * The layers without module mocks share their modules between files (isolate: false); command
 * tests mock the sleep module per file, so they keep isolation.
 */
const layer = (name: string, test: Record<string, unknown> = {}) => ({ extends: true as const, test: { name, include: [`test/${name}/**/*.test.ts`], ...test } });

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    projects: [
      layer('unit', { isolate: false }),
      layer('http', { isolate: false }),
      layer('sandbox', { isolate: false }),
      layer('commands'),
      layer('e2e'),
      layer('pty'),
    ],
  },
});
