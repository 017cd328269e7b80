import { indexWith, type Diagnostic, type ToolIndex } from '../core/index.js';
import { PolicySet } from './policy-set.js';

// what a reading of the policies against the tools finds, and the scan alone cannot: a `when` key no tool of its rule takes
const FOUND_HERE = 'UNKNOWN_PARAM';

/**
 * The index with what only a reading of its policies against its tools finds — a `when` key no tool of its rule takes
 * (UNKNOWN_PARAM: an error, which refuses the policy whole; a warning where a schema is open) — among its errors and
 * warnings, in place of any it had; itself when they are the same. A policy so refused refused every call while
 * /healthz said `ok` and nothing listed it: now it is reported as a broken definition is — `errors` in /healthz,
 * GET /v1/tools and POST /v1/scan, /healthz `degraded`, `hldp list`'s failed count, serve's start and a rescan's log,
 * the `definitions.broken` event (fixp24). The scanner gives it every index it serves (`RepositoryOptions.judge`).
 */
export function withPolicyProblems(index: ToolIndex): ToolIndex {
  const ours = (diagnostic: Diagnostic): boolean => diagnostic.code === FOUND_HERE;
  const had = [...index.errors, ...index.warnings].filter(ours);
  // a registry without policies compiles nothing
  if (!index.policies?.length && had.length === 0) return index;
  const set = PolicySet.of(index);
  const found = set.conditions;
  const key = (diagnostic: Diagnostic): string => `${diagnostic.severity}\0${diagnostic.file}\0${diagnostic.line}\0${diagnostic.column}\0${diagnostic.message}`;
  const seen = new Set(had.map(key));
  if (had.length === found.length && found.every((diagnostic) => seen.has(key(diagnostic)))) return index;
  const judged = indexWith(index, {
    errors: [...index.errors.filter((diagnostic) => !ours(diagnostic)), ...found.filter((diagnostic) => diagnostic.severity === 'error')],
    warnings: [...index.warnings.filter((diagnostic) => !ours(diagnostic)), ...found.filter((diagnostic) => diagnostic.severity !== 'error')],
  });
  PolicySet.share(judged, set);
  return judged;
}
