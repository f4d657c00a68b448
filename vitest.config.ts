import { defineConfig } from 'vitest/config';

/** One project per test layer (see test/<layer>/README.md), so each can be run and timed alone. */
const layer = (name: string, test: Record<string, unknown> = {}) => ({ extends: true as const, test: { name, include: [`test/${name}/**/*.test.ts`], ...test } });

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    projects: [layer('unit'), layer('http'), layer('sandbox'), layer('commands'), layer('e2e'), layer('pty')],
  },
});
