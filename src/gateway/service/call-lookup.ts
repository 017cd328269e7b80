import { compactSchema } from '../../matcher/index.js';
import type { ToolDefinition } from '../../core/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { Registry } from './registry-swap.js';
import { tooDeepParams, unknownToolOutcome } from './unknown-tool.js';

/** A call's tool found in the registry and its params valid (defaults filled), or the outcome that says why not. */
export type LookedUpCall = { ok: true; tool: ToolDefinition; data: Record<string, unknown> } | { ok: false; outcome: CallOutcome };

/**
 * The tool a call names (by name or alias) and its params checked against the tool's schema: an unknown or broken
 * tool, or invalid params, is the outcome the caller gets, with the schema it must meet.
 */
export function lookUpCall(registry: Registry, name: string, params: unknown): LookedUpCall {
  // a value nested past the limit is never cloned or validated: both recurse, and would overflow the stack
  const tooDeep = tooDeepParams(params);
  const lookup = registry.matcher.lookup(name, tooDeep ? {} : (params ?? {}));
  if (!lookup.found) return { ok: false, outcome: unknownToolOutcome(registry, name, lookup.errorMessage, lookup.near) };
  if (tooDeep) {
    return {
      ok: false,
      outcome: {
        kind: 'invalid_params', found: true, code: 'INVALID_PARAMS', tool: lookup.tool.name, error: `invalid params for '${lookup.tool.name}': ${tooDeep}`,
        problems: [{ param: '', message: tooDeep }], schema: compactSchema(lookup.tool.params_schema), params_schema: lookup.tool.params_schema,
      },
    };
  }
  if (!lookup.valid) {
    return {
      ok: false,
      outcome: {
        kind: 'invalid_params', found: true, code: 'INVALID_PARAMS', tool: lookup.tool.name, error: lookup.errorMessage,
        problems: lookup.problems, schema: lookup.schema, params_schema: lookup.tool.params_schema,
      },
    };
  }
  return { ok: true, tool: lookup.tool, data: lookup.data };
}
