import { posix } from 'node:path';
import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import type { ParamCondition, PolicyDecisionKind } from '../core/index.js';

/** Tests one param value (undefined when the call lacks it). */
export type ValueTest = (value: unknown) => boolean;

/**
 * How a condition reads values that could go either way, chosen so that the call gets the stricter decision:
 * an `allow` rule matches `strict`ly (a list only when every element matches, a glob's `*` not over dot files,
 * a path that climbs out with `..` never), an `approve` or `deny` rule `broad`ly (a list when any element
 * matches, dot files included, a path that climbs out always).
 */
export type ConditionMode = 'strict' | 'broad';

/** The reading an approval rule's conditions get. */
export function modeOf(decision: PolicyDecisionKind): ConditionMode {
  return decision === 'allow' ? 'strict' : 'broad';
}

/** Compiles one param condition once: globs by picomatch, regexes by RE2 (linear time, found anywhere in the text). */
export function compileCondition(condition: ParamCondition, mode: ConditionMode): ValueTest {
  const tests: Array<(scalar: string | number | boolean) => boolean> = [];
  if (condition.glob !== undefined) {
    const globs = Array.isArray(condition.glob) ? condition.glob : [condition.glob];
    const matchers = globs.map((glob) => picomatch(glob, { dot: mode === 'broad' }));
    tests.push((scalar) => {
      if (typeof scalar !== 'string') return false;
      const path = posix.normalize(scalar);
      if (path === '..' || path.startsWith('../')) return mode === 'broad';
      return matchers.some((matches) => matches(path));
    });
  }
  if (condition.regex !== undefined) {
    const pattern = RE2JS.compile(condition.regex);
    tests.push((scalar) => pattern.matcher(String(scalar)).find());
  }
  if (condition.equals !== undefined) {
    const values = Array.isArray(condition.equals) ? condition.equals : [condition.equals];
    tests.push((scalar) => values.includes(scalar));
  }
  const scalarTest = (scalar: unknown): boolean =>
    (typeof scalar === 'string' || typeof scalar === 'number' || typeof scalar === 'boolean') && tests.every((test) => test(scalar));
  return (value) => {
    if (Array.isArray(value)) return value.length > 0 && (mode === 'strict' ? value.every(scalarTest) : value.some(scalarTest));
    return scalarTest(value);
  };
}
