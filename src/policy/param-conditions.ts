import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type Picomatch from 'picomatch';
import type { ParamCondition, PolicyDecisionKind } from '../core/index.js';
import { linearPattern, metered, ParamsTooCostly } from '../matcher/index.js';
import { globMatcher } from './glob-matcher.js';
import { judgeablePath } from './glob-work.js';
import { resolvedRootedPath, rootedPath, type RootedPath } from './rooted-path.js';

/**
 * Tests one param value (undefined when the call lacks it); a glob reads it as a path under `roots`, the
 * tool's root (see {@link rootedPath}), none when the gateway does not know where the tool's paths land.
 * `cwd`: where the tool opens a relative path, when it runs in a working directory of its own (a shell tool's `cwd`,
 * which a param may name): relative to the root or absolute, and a relative path is read as `<cwd>/<path>`, so
 * `{path: key, dir: secrets}` under `cwd: "{dir}"` is `secrets/key`; `null` when the gateway cannot place it, and
 * then a relative path cannot be judged, even against a relative glob (review Q, Q9).
 */
export type ValueTest = (value: unknown, roots?: readonly string[], cwd?: string | null) => boolean;

/**
 * How a condition reads values that could go either way, chosen so that the call gets the stricter decision:
 * an `allow` rule matches `strict`ly (a list only when every element matches, an object never, a glob's `*` not
 * over dot files, a path that cannot be judged never), an `approve` or `deny` rule `broad`ly (a list or an object
 * when any scalar inside it matches — elements, nested values, keys — or always when it is too deep to read, dot
 * files included, a path that cannot be judged always). A path cannot be judged when it climbs
 * out of the tool's root, or is absolute outside it, or when the gateway does not know the root and the glob
 * and the path are not both relative or both absolute, or when it is relative and the tool has its own cwd that
 * the gateway cannot place.
 */
export type ConditionMode = 'strict' | 'broad';

/** The reading an approval rule's conditions get. */
export function modeOf(decision: PolicyDecisionKind): ConditionMode {
  return decision === 'allow' ? 'strict' : 'broad';
}

/**
 * Compiles one param condition once (`unjudged`: what a path it cannot judge gives, by default the mode's answer;
 * false asks whether the call matches by the paths it can judge, to say why a deny or approve rule took it): globs by picomatch, regexes by RE2 (linear time, found anywhere in the text).
 * RE2's time is the text's length times the program's size (`a[ab]{999}c`: ~1,000 steps a character, review X, X1), so
 * one reading of a value has the params' work budget (MAX_PARAMS_WORK): a value past it cannot be judged, and so
 * matches a broad rule and not a strict one. A glob's RegExp, run as a state machine, is charged to it too, and a
 * path past PATH_MAX cannot be judged (see {@link globMatcher}).
 */
export function compileCondition(condition: ParamCondition, mode: ConditionMode, unjudged = mode === 'broad'): ValueTest {
  const tests: Array<(scalar: string | number | boolean, roots: readonly string[], cwd: string | null | undefined) => boolean> = [];
  if (condition.glob !== undefined) {
    const globs = Array.isArray(condition.glob) ? condition.glob : [condition.glob];
    // an absolute glob judges the path's absolute form, a relative one its form relative to the tool's root
    const picomatch = picomatchModule();
    // each match is charged to the params' budget: picomatch's RegExp backtracks, quadratic in the segments for
    // `**/secrets/**/*.key` (a 256 KB path held the gateway 409 s: review Y, Y4), so it runs as a state machine
    const matchers = globs.map((glob) => ({ absolute: glob.startsWith('/'), matches: globMatcher(picomatch, glob, { dot: mode === 'broad' }) }));
    const judge = (path: RootedPath): boolean =>
      matchers.some(({ absolute, matches }) => {
        if (!absolute) return path.relative === undefined ? unjudged : matches(path.relative);
        // every name of one file: a glob written against either spelling of the root judges it
        return path.absolute.length === 0 ? unjudged : path.absolute.some((name) => matches(name));
      });
    tests.push((scalar, roots, cwd) => {
      if (typeof scalar !== 'string') return false;
      // a relative path of a tool with its own cwd lands there: `{path: key, dir: secrets}` is secrets/key, which its
      // spelling hides; joined as spelt, so that a symlink in the cwd before a `..` in the path resolves as the kernel's
      const placed = cwd === undefined || posix.isAbsolute(scalar) ? scalar : cwd === null ? undefined : `${cwd}/${scalar}`;
      // one the kernel would refuse (past PATH_MAX) cannot be judged: before its symlinks are asked of the disk
      if (placed === undefined || !judgeablePath(placed)) return judge({ relative: undefined, absolute: [] });
      const path = rootedPath(placed, roots);
      if (roots.length === 0) return judge(path);
      // the path as spelt and where its symlinks lead: deny and approve rules match either, allow rules need both
      const real = resolvedRootedPath(placed, path, roots);
      return mode === 'broad' ? judge(path) || judge(real) : judge(path) && judge(real);
    });
  }
  if (condition.regex !== undefined) {
    const pattern = linearPattern(condition.regex);
    tests.push((scalar) => pattern.find(String(scalar), ''));
  }
  if (condition.equals !== undefined) {
    const values = Array.isArray(condition.equals) ? condition.equals : [condition.equals];
    tests.push((scalar) => values.includes(scalar));
  }
  const judge = (value: unknown, roots: readonly string[], cwd: string | null | undefined): boolean => {
    const scalarTest = (scalar: unknown): boolean => isScalar(scalar) && tests.every((test) => test(scalar, roots, cwd));
    if (mode === 'broad') return isScalar(value) ? scalarTest(value) : anyScalarInside(value, scalarTest);
    if (Array.isArray(value)) return value.length > 0 && value.every(scalarTest);
    return scalarTest(value);
  };
  return (value, roots = [], cwd = undefined) => {
    try {
      return metered(() => judge(value, roots, cwd));
    } catch (error) {
      if (error instanceof ParamsTooCostly) return mode === 'broad';
      throw error;
    }
  };
}

// past these, a value is one a broad rule cannot judge: it matches, as a path that climbs out of the root does
const MAX_DEPTH = 64;
const MAX_SCALARS = 100_000;

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

// A broad (approve/deny) reading of a list or an object: it matches when any scalar inside does — elements, values
// at any depth and object keys, since a tool may read any of them — and always when it is too deep or too large to read
function anyScalarInside(value: unknown, test: (scalar: unknown) => boolean): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let seen = 0;
  while (pending.length > 0) {
    const { value: next, depth } = pending.pop()!;
    if (isScalar(next)) {
      seen += 1;
      if (seen > MAX_SCALARS || test(next)) return true;
      continue;
    }
    if (next === null || typeof next !== 'object') continue;
    if (depth >= MAX_DEPTH) return true;
    if (Array.isArray(next)) {
      for (const element of next) pending.push({ value: element, depth: depth + 1 });
      continue;
    }
    for (const [key, inner] of Object.entries(next)) pending.push({ value: key, depth: depth + 1 }, { value: inner, depth: depth + 1 });
  }
  return false;
}

let picomatchLoaded: typeof Picomatch | undefined;

// picomatch (CommonJS) at the first glob compiled, not as the policies' module loads: a server with no glob in its
// policies never needs it, and one with globs compiles them after it listens (issue #18)
function picomatchModule(): typeof Picomatch {
  picomatchLoaded ??= createRequire(import.meta.url)('picomatch') as typeof Picomatch;
  return picomatchLoaded;
}
