import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastCheckSeed } from './helpers/fast-check-seed.js';
import { propertyRunsFactor } from './helpers/property-runs.js';
import { testFolder } from './helpers/test-folder.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const CONFIG = 'test/fixtures/fast-check-seed/vitest.config.ts';

interface SeededRun {
  /** the lines of the run's output that say its seed */
  printed: string[];
  /** the first values each of the two files' properties generated, by file */
  values: Record<'a' | 'b', number[]>;
  /** how many runs a property naming none made, by file */
  unnamed: Record<'a' | 'b', number>;
}

/**
 * Runs the suite's vitest configuration over the two fixture files, as `npx vitest run` does, with `FC_SEED` and
 * `HLDP_PROPERTY_RUNS` as given.
 */
async function runFixtures(out: string, fcSeed: string | undefined, factor?: string): Promise<SeededRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, HLDP_FC_SEED_OUT: out, HLDP_TEST_POSTGRES: 'off' };
  // this worker's own markers would make the inner vitest think it runs inside a worker; the outer FC_SEED and
  // HLDP_PROPERTY_RUNS are not this run's
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'FC_SEED' || key === 'HLDP_PROPERTY_RUNS') delete env[key];
  if (fcSeed !== undefined) env.FC_SEED = fcSeed;
  if (factor !== undefined) env.HLDP_PROPERTY_RUNS = factor;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [VITEST, 'run', '--config', CONFIG], { cwd: ROOT, env, maxBuffer: 16 << 20 });
  const read = async (name: string) => JSON.parse(await readFile(join(out, `${name}.json`), 'utf8')) as { values: number[]; unnamed: number };
  const [a, b] = [await read('a'), await read('b')];
  return {
    printed: `${stdout}\n${stderr}`.split('\n').filter((line) => line.startsWith('fast-check seed ')),
    values: { a: a.values, b: b.values },
    unnamed: { a: a.unnamed, b: b.unnamed },
  };
}

describe('the fast-check seed of a test run', () => {
  const folder = testFolder('hldp-fc-seed-');

  describe('when vitest runs two property files in forks of their own', () => {
    it('starts both from the commit’s seed, or FC_SEED’s, says it once, and another FC_SEED generates other values', async () => {
      const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
      const seed = Number.parseInt(commit.slice(0, 7), 16);
      const outs = ['commit', 'same', 'other'].map((name) => join(folder.path, name));
      for (const out of outs) execFileSync('mkdir', [out]);
      const [fromCommit, same, other] = await Promise.all([
        runFixtures(outs[0]!, undefined),
        runFixtures(outs[1]!, String(seed)),
        runFixtures(outs[2]!, String(seed + 1)),
      ]);

      expect(fromCommit.printed).toEqual([`fast-check seed ${seed} (commit ${commit.slice(0, 7)}); FC_SEED=${seed} generates this run's values again`]);
      expect(same.printed).toEqual([`fast-check seed ${seed} (FC_SEED); FC_SEED=${seed} generates this run's values again`]);
      // fc.sample with a seed generates what fc.assert with that seed does
      const expected = fc.sample(fc.integer(), { seed, numRuns: 5 });
      expect(fromCommit.values).toEqual({ a: expected, b: expected });
      expect(same.values).toEqual({ a: expected, b: expected });
      const otherExpected = fc.sample(fc.integer(), { seed: seed + 1, numRuns: 5 });
      expect(otherExpected).not.toEqual(expected);
      expect(other.values).toEqual({ a: otherExpected, b: otherExpected });
      // fast-check's own default for a property that names no runs, as before HLDP_PROPERTY_RUNS
      expect(fromCommit.unnamed).toEqual({ a: 100, b: 100 });
    }, 180_000);
  });

  describe('when HLDP_PROPERTY_RUNS gives a factor', () => {
    it('runs every property that many times over, named runs or fast-check’s default, from the same first values, and says how to run them again', async () => {
      const out = join(folder.path, 'thrice');
      execFileSync('mkdir', [out]);
      const thrice = await runFixtures(out, '42', '3');

      expect(thrice.printed).toEqual(["fast-check seed 42 (FC_SEED), each property at 3 × its runs (HLDP_PROPERTY_RUNS); FC_SEED=42 HLDP_PROPERTY_RUNS=3 generates this run's values again"]);
      // runs(5) is 15 runs, the first 5 of them those of a run without the factor: a failure there is found again
      const expected = fc.sample(fc.integer(), { seed: 42, numRuns: 15 });
      expect(expected.slice(0, 5)).toEqual(fc.sample(fc.integer(), { seed: 42, numRuns: 5 }));
      expect(thrice.values).toEqual({ a: expected, b: expected });
      expect(thrice.unnamed).toEqual({ a: 300, b: 300 });
    }, 180_000);

    it.each(['0', '-2', '1.5', '10x', '1001', 'ten'])('refuses HLDP_PROPERTY_RUNS=%s, saying what a factor is', (given) => {
      expect(() => propertyRunsFactor({ HLDP_PROPERTY_RUNS: given })).toThrow(`HLDP_PROPERTY_RUNS=${given} is not a factor: give a whole number from 1 to 1000, the times over each property runs`);
    });

    it.each([[undefined, 1], ['', 1], ['1', 1], [' 10 ', 10], ['1000', 1000]])('takes HLDP_PROPERTY_RUNS=%j as %d', (given, factor) => {
      expect(propertyRunsFactor(given === undefined ? {} : { HLDP_PROPERTY_RUNS: given })).toBe(factor);
    });
  });

  describe('when FC_SEED is not a 32-bit integer', () => {
    it.each(['1.5', 'abc', '2147483648', '-2147483649', '0x10'])('refuses FC_SEED=%s, saying what a seed is', (given) => {
      expect(() => fastCheckSeed({ FC_SEED: given }, ROOT)).toThrow(`FC_SEED=${given} is not a seed: give an integer between -2147483648 and 2147483647`);
    });

    it.each([['-2147483648', -2147483648], ['2147483647', 2147483647], [' 42 ', 42], ['0', 0]])('takes FC_SEED=%j as %d', (given, seed) => {
      expect(fastCheckSeed({ FC_SEED: given }, ROOT)).toEqual({ seed, from: 'FC_SEED' });
    });
  });

  describe('when the checkout belongs to another user than the one running the tests (CI runs as root)', () => {
    it.runIf(process.getuid?.() === 0)('still derives it from the commit', async () => {
      const repo = join(folder.path, 'theirs');
      execFileSync('git', ['init', '-q', repo]);
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: repo });
      const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
      execFileSync('chown', ['-R', '1000', repo]);
      expect(fastCheckSeed({}, repo)).toEqual({ seed: Number.parseInt(commit.slice(0, 7), 16), from: `commit ${commit.slice(0, 7)}` });
    });
  });

  describe('when there is no commit to derive it from', () => {
    it('chooses a random one and says so', () => {
      const { from, seed } = fastCheckSeed({}, folder.path);
      expect(from).toBe('random: no git commit to derive it from');
      expect(Number.isInteger(seed)).toBe(true);
    });
  });
});
