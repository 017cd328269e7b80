import { valueAt } from './schema-meta-problems.js';
import type { SchemaProblem } from './shape-checker.js';

const PLACEHOLDER_NAME = /^[A-Za-z_][\w.-]{0,63}$/;

/**
 * A `{param}` placeholder written unquoted (`argv: [echo, {word}]`), which YAML reads as the mapping `{word: null}`, so
 * the shape check says the value is not text (review userZ7, F1): every author's first slip with this format. Each
 * problem at such a value says so and how to write it.
 */
export function withUnquotedPlaceholders(value: Record<string, unknown>, problems: SchemaProblem[]): SchemaProblem[] {
  return problems.map((problem) => {
    if (problem.atKey || problem.missing !== undefined) return problem;
    const name = unquotedPlaceholder(valueAt(value, problem.path));
    if (name === undefined) return problem;
    return { ...problem, message: `${problem.message}: {${name}} written unquoted is a YAML mapping, not text; write it quoted, "{${name}}"` };
  });
}

// the name of a one-key mapping whose value is null: what YAML makes of `{name}` unquoted
function unquotedPlaceholder(found: unknown): string | undefined {
  if (typeof found !== 'object' || found === null || Array.isArray(found)) return undefined;
  const keys = Object.keys(found);
  if (keys.length !== 1 || (found as Record<string, unknown>)[keys[0]!] !== null) return undefined;
  return PLACEHOLDER_NAME.test(keys[0]!) ? keys[0] : undefined;
}
