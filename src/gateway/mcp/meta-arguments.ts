import { compactSchema, MAX_LIMIT } from '../../matcher/index.js';
import { CONFIRM_TOOL, FIND_TOOL, type MetaTool } from '../../export/index.js';

/** Arguments of a meta-tool, checked: the values, or a message worded as the matcher words invalid params. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** `tool_find {intent, limit?}`. */
export function checkFindArguments(args: Record<string, unknown>): Checked<{ intent: string; limit?: number }> {
  const problems = unknownKeys(FIND_TOOL, args);
  const { intent, limit } = args;
  if (typeof intent !== 'string' || intent.trim() === '') problems.unshift(intent === undefined ? `'intent' is required but missing` : `'intent' must be a non-empty string`);
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_LIMIT)) problems.push(`'limit' must be an integer from 1 to ${MAX_LIMIT}`);
  if (problems.length > 0) return invalid(FIND_TOOL, problems);
  return { ok: true, value: { intent: (intent as string).trim(), ...(limit === undefined ? {} : { limit: limit as number }) } };
}

/** `confirm {token}`. */
export function checkConfirmArguments(args: Record<string, unknown>): Checked<{ token: string }> {
  const problems = unknownKeys(CONFIRM_TOOL, args);
  const { token } = args;
  if (typeof token !== 'string' || token === '') problems.unshift(token === undefined ? `'token' is required but missing` : `'token' must be a non-empty string`);
  if (problems.length > 0) return invalid(CONFIRM_TOOL, problems);
  return { ok: true, value: { token: token as string } };
}

function unknownKeys(tool: MetaTool, args: Record<string, unknown>): string[] {
  const known = Object.keys((tool.inputSchema['properties'] ?? {}) as object);
  return Object.keys(args)
    .filter((key) => !known.includes(key))
    .map((key) => `'${key}' is not a parameter of this tool`);
}

function invalid(tool: MetaTool, problems: string[]): { ok: false; error: string } {
  return { ok: false, error: `invalid params for '${tool.name}': ${problems.join('; ')}. Expected params: ${compactSchema(tool.inputSchema)}` };
}
