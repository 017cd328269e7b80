// vitest global set-up: chooses the run's one fast-check seed, says it once, and hands it to every worker (test/fast-check-setup.ts).
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { fastCheckSeed } from './helpers/fast-check-seed.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the seed every fast-check property of this run starts from, unless it sets its own */
    fastCheckSeed: number;
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Reads the seed in the main process, once, since the workers (forks) could each read another (a random one). */
export default function setup(project: TestProject): void {
  const { seed, from } = fastCheckSeed(process.env, ROOT);
  process.stderr.write(`fast-check seed ${seed} (${from}); FC_SEED=${seed} generates this run's values again\n`);
  project.provide('fastCheckSeed', seed);
}
