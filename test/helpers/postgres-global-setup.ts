// vitest global set-up: one throwaway PostgreSQL cluster for the whole run (each test file makes its own databases in it), stopped at the end.
import type { TestProject } from 'vitest/node';
import { postgresAvailability, startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the shared cluster's maintenance-database URL, or why there is none */
    postgres: { url: string } | { url: null; reason: string };
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.HLDP_TEST_POSTGRES === 'off') {
    project.provide('postgres', { url: null, reason: 'HLDP_TEST_POSTGRES=off' });
    return undefined;
  }
  const availability = postgresAvailability();
  if (!availability.available) {
    project.provide('postgres', { url: null, reason: availability.reason });
    return undefined;
  }
  const cluster = await startPostgres();
  project.provide('postgres', { url: cluster.url() });
  return () => cluster.stop();
}
