// Mutation testing of the core modules (`npm run mutation`, not part of `npm test`): the HTTP core,
// signatures, the event feed and cursor saving, and the output layer, against the tests in
// vitest.mutation.config.ts. Incremental: a re-run tests only mutants whose code or tests changed.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    'src/api/client.ts',
    'src/api/retry.ts',
    'src/core/signature.ts',
    'src/features/events/feed.ts',
    // the saved cursor: read and written per profile and base URL
    'src/core/config.ts:90-93',
    'src/core/config.ts:118-123',
    'src/core/output.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 85, low: 75, break: 75 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  timeoutMS: 10_000,
};
