// vitest setup file, run in each worker before its test file: every fast-check property starts from the run's seed, and
// runs HLDP_PROPERTY_RUNS times over (test/helpers/property-runs.ts).
import fc from 'fast-check';
import { inject, vi } from 'vitest';
import { propertyTimeout, runs } from './helpers/property-runs.js';

// a property's own `seed` and `numRuns` still win (fast-check spreads its parameters over these): one that names no
// runs gets fast-check's default of 100, times the factor
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: inject('fastCheckSeed'), numRuns: runs(100) });
// a test that names no timeout gets the suite's, stretched as its runs are (a guard against a hang, not a measure)
if (runs(1) !== 1) vi.setConfig({ testTimeout: propertyTimeout(inject('testTimeout')) });
