import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutation` runs against the mutated core modules (see stryker.config.mjs):
 * the unit and HTTP-core tests of the HTTP core, signatures, the event feed and cursor, and output.
 */
export default defineConfig({
  test: {
    include: [
      'test/http/client.test.ts',
      'test/http/retry.test.ts',
      'test/http/client-messages.test.ts',
      'test/http/retry-edges.test.ts',
      'test/unit/signature.test.ts',
      'test/unit/events.test.ts',
      'test/unit/feed-edges.test.ts',
      'test/unit/signature-edges.test.ts',
      'test/unit/config.test.ts',
      'test/unit/cursor.test.ts',
      'test/unit/output.test.ts',
      'test/unit/table-fit.test.ts',
      'test/unit/fields-csv.test.ts',
      'test/unit/events-tail-support.test.ts',
    ],
    testTimeout: 30_000,
    setupFiles: ['test/helpers/setup.ts'],
  },
});
