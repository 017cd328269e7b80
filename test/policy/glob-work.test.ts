// Review Y, Y4: a `glob` condition's RegExp (picomatch's, run as a state machine where it can be, else as it is, which
// backtracks) is bounded (a path the kernel would refuse cannot be judged) and charged to the params' work budget.
// Within both, the outcome is picomatch's own, whatever the glob; past either, the stricter one: a deny or approve rule
// matches, an allow does not.
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { MAX_PARAMS_WORK } from '../../src/matcher/params-work.js';
import { compileCondition, type ConditionMode } from '../../src/policy/index.js';
import { globShape, globWork, judgeablePath, MAX_GLOB_SEGMENTS } from '../../src/policy/glob-work.js';
import { runs } from '../helpers/property-runs.js';

const MODES: ConditionMode[] = ['broad', 'strict'];
const name = fc.stringMatching(/^[abksey.]{1,12}$/).filter((segment) => segment !== '.' && segment !== '..');
// a normalised relative path (rootedPath's output): what a glob is matched against
const ordinaryPath = fc.array(name, { minLength: 1, maxLength: 12 }).map((segments) => segments.join('/'));
const globPiece = fc.constantFrom('**', '*', '*.key', 'secrets', 'a', '?', '{a,b}', '[ab]*', '.*', 'k?y', 's*e*s', '{a,*.key}');
// at most 3 `**` and 3 other stars: on 12 segments of 12 characters, the work stays within the budget
const glob = fc
  .array(globPiece, { minLength: 1, maxLength: 5 })
  .map((pieces) => pieces.join('/'))
  .filter((text) => globShape(text).globstars <= 3 && globShape(text).stars <= 3);

describe('a glob condition, bounded and charged', () => {
  it('decides every ordinary path as picomatch does, in both readings', () => {
    fc.assert(
      fc.property(glob, ordinaryPath, (pattern, path) => {
        expect(globWork(globShape(pattern), path)).toBeLessThanOrEqual(MAX_PARAMS_WORK);
        for (const mode of MODES) {
          expect(compileCondition({ glob: pattern }, mode)(path)).toBe(picomatch(pattern, { dot: mode === 'broad' })(path));
        }
      }),
      { numRuns: runs(400) },
    );
  });

  it('cannot judge a path past PATH_MAX, NAME_MAX or 256 segments: a broad rule matches it, a strict one does not', () => {
    const tooLong = fc.oneof(
      fc.tuple(name, fc.integer({ min: MAX_GLOB_SEGMENTS, max: 2_000 })).map(([segment, count]) => `${segment}/`.repeat(count) + 'x'),
      fc.integer({ min: 256, max: 5_000 }).map((length) => 'k'.repeat(length)),
      fc.integer({ min: 1_366, max: 2_000 }).map((count) => 'é/'.repeat(count)),
    );
    fc.assert(
      fc.property(tooLong, fc.constantFrom('**', '*', 'secrets/**', '**/*.key', 'nothing'), (path, pattern) => {
        expect(judgeablePath(path)).toBe(false);
        expect(compileCondition({ glob: pattern }, 'broad')(path)).toBe(true);
        expect(compileCondition({ glob: pattern }, 'strict')(path)).toBe(false);
      }),
      { numRuns: runs(60) },
    );
  });

  it('judges 32,000 x "secrets/" under `**/secrets/**/*.key` as one it cannot judge, and a deep ordinary path on the rule', () => {
    const deny = compileCondition({ glob: '**/secrets/**/*.key' }, 'broad');
    const allow = compileCondition({ glob: '**/secrets/**/*.key' }, 'strict');
    expect(deny(`${'secrets/'.repeat(32_000)}x`)).toBe(true);
    expect(allow(`${'secrets/'.repeat(32_000)}x`)).toBe(false);
    // within the bounds, `**/a/**/b/**/c` (cubic in the segments for the backtracking RegExp: 8 KB took 6-8 s) runs as a
    // state machine, linear: a path of 255 segments is judged on the rule, where the estimate put it past the budget
    for (const mode of MODES) {
      expect(compileCondition({ glob: '**/a/**/b/**/c' }, mode)(`${'a/b/'.repeat(127)}x`)).toBe(false);
      expect(compileCondition({ glob: '**/a/**/b/**/c' }, mode)(`${'a/b/'.repeat(127)}c`)).toBe(true);
    }
    // an extglob over a run of any length (`!(*.txt)`) stays on the backtracking RegExp and its estimate: past the budget
    // it cannot be judged, so a broad rule matches and a strict one does not
    expect(compileCondition({ glob: '**/!(*.txt)/**/b/**/c' }, 'broad')(`${'a/b/'.repeat(127)}x`)).toBe(true);
    expect(compileCondition({ glob: '**/!(*.txt)/**/b/**/c' }, 'strict')(`${'a/b/'.repeat(127)}x`)).toBe(false);
    for (const mode of MODES) {
      const test = compileCondition({ glob: '**/secrets/**/*.key' }, mode);
      expect(test(`${'secrets/'.repeat(200)}id.key`)).toBe(true);
      expect(test(`${'secrets/'.repeat(200)}id.txt`)).toBe(false);
      expect(test(`${'node_modules/pkg/'.repeat(20)}secrets/deploy.key`)).toBe(true);
    }
  });
});
