/**
 * How many candidates an intent is answered with: the spec's "the best 1-3" (L4-TOOL-003 §2, step 3). One rule for
 * every surface, stated from these constants: POST /v1/match and /v1/call {intent} (the OpenAPI document's schemas,
 * which the server validates with), MCP `tool_find`'s inputSchema and `hldp match --limit`. A limit outside 1..MAX_LIMIT
 * is refused in the same words everywhere, never cut (review U11-25: the HTTP schema took 1-10, `--help` said 1-3, the
 * lexical stage answered up to the limit while the other stages stopped at 3).
 */
export const MAX_LIMIT = 3;
/** Candidates an intent yields when no limit is given. */
export const DEFAULT_LIMIT = 3;

/** `limit` as every schema that takes it states it. */
export const LIMIT_SCHEMA = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_LIMIT,
  default: DEFAULT_LIMIT,
  description: `how many candidates at most: an integer from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
} as const;

/** Whether `value` is a limit a match takes: an integer from 1 to MAX_LIMIT. */
export function isMatchLimit(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT;
}

/**
 * The refusal of a limit outside 1..MAX_LIMIT, in the same words on every surface: `field` names it as the surface
 * does (`'limit'`, `--limit`), `got` is what was sent (shown short: a string quoted, a list or object by its kind).
 */
export function limitRefusal(field: string, got: unknown): string {
  return `${field} must be an integer from 1 to ${MAX_LIMIT} (an intent is answered with its best 1 to ${MAX_LIMIT} candidates), got ${shown(got)}`;
}

// what was sent, short and on one line, without walking it (a body's value may be a deep list)
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/**
 * A body's or arguments' problems (a shape checker's) with those of the top-level `limit` made one `limitRefusal`:
 * ajv's own words (`'limit' must be <= 10`) named neither the range nor why, and differed from the command line's.
 */
export function withLimitRefusal<T extends { path: ReadonlyArray<string | number>; message: string }>(problems: T[], got: unknown): T[] {
  let said = false;
  return problems.flatMap((problem) => {
    if (problem.path.length !== 1 || problem.path[0] !== 'limit') return [problem];
    if (said) return [];
    said = true;
    return [{ ...problem, message: limitRefusal("'limit'", got) }];
  });
}
