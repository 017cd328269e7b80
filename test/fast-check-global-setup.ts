// vitest global set-up: chooses the run's one fast-check seed, says it once, and hands it to every worker (test/fast-check-setup.ts).
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { fastCheckSeed } from './helpers/fast-check-seed.js';
import { propertyRunsFactor } from './helpers/property-runs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the seed every fast-check property of this run starts from, unless it sets its own */
    fastCheckSeed: number;
    /** the suite's test timeout, which test/fast-check-setup.ts stretches by HLDP_PROPERTY_RUNS */
    testTimeout: number;
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Reads the seed in the main process, once, since the workers (forks) could each read another (a random one); says the
 * runs' factor too where it is not 1 (HLDP_PROPERTY_RUNS, which each worker reads), since a failure's values come again
 * only with as many runs. A factor that is not one stops the run here, before any worker.
 */
export default function setup(project: TestProject): void {
  const { seed, from } = fastCheckSeed(process.env, ROOT);
  const factor = propertyRunsFactor(process.env);
  const runs = factor === 1 ? '' : `, each property at ${factor} × its runs (HLDP_PROPERTY_RUNS)`;
  const again = factor === 1 ? `FC_SEED=${seed}` : `FC_SEED=${seed} HLDP_PROPERTY_RUNS=${factor}`;
  process.stderr.write(`fast-check seed ${seed} (${from})${runs}; ${again} generates this run's values again\n`);
  project.provide('fastCheckSeed', seed);
  project.provide('testTimeout', project.config.testTimeout);
}
