// vitest setup file, run in each worker before its test file: every fast-check property starts from the run's seed.
import fc from 'fast-check';
import { inject } from 'vitest';

// a property's own `seed` still wins (fast-check spreads its parameters over these)
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: inject('fastCheckSeed') });
