import { nearWord, type ApprovalRule, type Diagnostic, type JsonSchema, type PolicyDefinition, type ToolDefinition } from '../core/index.js';

// params named in one message; the rest are counted
const NAMED = 8;

/** What a tool's params_schema says of its params: the names it declares, and whether it lets others through. */
interface Declared {
  names: Set<string>;
  open: boolean;
}

/**
 * The `when` keys of a policy's approval rules that no tool the rule covers takes (code UNKNOWN_PARAM, review userZ9,
 * U9-12): a condition on a param the call never has never holds, and every condition must, so the rule matches
 * nothing — `pth:` for `path:` turned a deny over `notes/private/**` into nothing, and the writes went through. So it
 * is an error at the key, which refuses the policy whole as a tool name the registry lacks does. Where a covered tool's
 * schema lets other params through (no `additionalProperties: false`, or `patternProperties`), a caller may send it,
 * and it is a warning. `covered` gives the tools a rule covers (none found: nothing can be said of it).
 */
export function conditionKeyProblems(policies: readonly PolicyDefinition[], covered: (rule: ApprovalRule) => Iterable<ToolDefinition>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const declaredOf = new Map<ToolDefinition, Declared>();
  for (const policy of policies) {
    for (const rule of policy.approval) {
      const keys = Object.keys(rule.when ?? {});
      if (keys.length === 0) continue;
      let missing = new Set(keys);
      const tools: ToolDefinition[] = [];
      const params = new Set<string>();
      let open = false;
      // stops at the first tools that declare every key: a `*` rule over a large registry reads only as far as it must
      for (const tool of covered(rule)) {
        let declared = declaredOf.get(tool);
        if (!declared) declaredOf.set(tool, (declared = declaredParams(tool.params_schema)));
        tools.push(tool);
        for (const name of declared.names) params.add(name);
        open ||= declared.open;
        missing = new Set([...missing].filter((key) => !declared.names.has(key)));
        if (missing.size === 0) break;
      }
      if (tools.length === 0) continue;
      for (const key of missing) problems.push(problem(policy, rule, key, tools, [...params], open));
    }
  }
  return problems;
}

function problem(policy: PolicyDefinition, rule: ApprovalRule, key: string, tools: readonly ToolDefinition[], params: readonly string[], open: boolean): Diagnostic {
  const at = rule.when_at?.find((place) => place.param === key) ?? rule.at;
  const near = nearWord(key, params);
  const which = tools.length === 1 ? `${tools[0]!.name} does not take (its params: ${said(params)})` : `none of the ${tools.length} tools it covers takes (their params: ${said(params)})`;
  const guess = near ? `; did you mean '${near}'?` : '';
  if (open) {
    return {
      file: policy.source.path, line: at.line, column: at.column, severity: 'warning', code: 'UNKNOWN_PARAM',
      message: `policy '${policy.name}' conditions on '${key}', which ${which}${guess} — a schema there lets other params through, so the condition holds only when a caller sends '${key}' itself`,
    };
  }
  return {
    file: policy.source.path, line: at.line, column: at.column, severity: 'error', code: 'UNKNOWN_PARAM',
    message: `policy '${policy.name}' conditions on '${key}', which ${which}${guess} (a condition on a param no call has never holds, so the rule would match nothing and not stop what it was written to stop: the policy is refused whole)`,
  };
}

function said(params: readonly string[]): string {
  if (params.length === 0) return 'none';
  return params.slice(0, NAMED).join(', ') + (params.length > NAMED ? ` and ${params.length - NAMED} more` : '');
}

// the names a schema declares (its own properties and those of its allOf/anyOf/oneOf branches), and whether it lets
// others through: JSON Schema's default, unless additionalProperties is false and no patternProperties could match
function declaredParams(schema: JsonSchema): Declared {
  const names = new Set<string>();
  const gather = (part: unknown): void => {
    if (typeof part !== 'object' || part === null) return;
    const properties = (part as JsonSchema)['properties'];
    if (typeof properties === 'object' && properties !== null) for (const name of Object.keys(properties)) names.add(name);
  };
  gather(schema);
  for (const branch of ['allOf', 'anyOf', 'oneOf']) {
    const parts = schema[branch];
    if (Array.isArray(parts)) parts.forEach(gather);
  }
  const open = (schema['additionalProperties'] !== false && schema['unevaluatedProperties'] !== false) || schema['patternProperties'] !== undefined;
  return { names, open };
}
