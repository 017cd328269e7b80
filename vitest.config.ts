import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // a guard against a hang, not a measure: a test that spawns a cold CLI process took over 25 s at load 17-20 on CI's 2 cores
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // rebuilds dist/ when a source is newer (the CLI tests run bin/hldp.js, which runs dist/); starts PostgreSQL for the store tests;
    // chooses the run's fast-check seed (FC_SEED, else from the commit) and prints it
    globalSetup: ['test/global-setup.ts', 'test/helpers/postgres-global-setup.ts', 'test/fast-check-global-setup.ts'],
    // every worker's fast-check properties start from that seed, so a run on a commit generates what CI's run on it did
    setupFiles: ['test/fast-check-setup.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'text', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
