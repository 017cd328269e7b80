import { declaredParams, nearWord, nearWords, type ApprovalRule, type DeclaredParams, type Diagnostic, type ParamsUnion, type PolicyDefinition, type ToolDefinition } from '../core/index.js';

// params named in one message; the rest are counted
const NAMED = 8;

/**
 * The tools a rule covers as their params' union, known without making them (an index served from the scan cache
 * keeps each tool's declared params: review Z17, Z17-5): how many there are, the first one's name, and the union.
 */
export interface CoveredParams {
  tools: number;
  first: string;
  union: ParamsUnion;
}

/**
 * The `when` keys of a policy's approval rules that no tool the rule covers takes (code UNKNOWN_PARAM, review userZ9,
 * U9-12): a condition on a param the call never has never holds, and every condition must, so the rule matches
 * nothing — `pth:` for `path:` turned a deny over `notes/private/**` into nothing, and the writes went through. So it
 * is an error at the key, which refuses the policy whole as a tool name the registry lacks does. Where a covered tool's
 * schema lets other params through (no `additionalProperties: false`, or `patternProperties`), a caller may send it,
 * and it is a warning — unless the key is one slip from a declared param (`pth` beside `path`): that is the typo U9-12
 * was, in the schema most tools have (JSON Schema's default is open), and it stays an error (review Z17, Z17-3).
 * `covered` gives the tools a rule covers (none found: nothing can be said of it), or their params' union where that is
 * known: each key is then looked up in it, and no tool is made.
 */
export function conditionKeyProblems(policies: readonly PolicyDefinition[], covered: (rule: ApprovalRule) => Iterable<ToolDefinition> | CoveredParams): Diagnostic[] {
  const problems: Diagnostic[] = [];
  // weakly: a tool of an index served from the scan cache is made for the walk alone, and must not be kept by it
  const declaredOf = new WeakMap<ToolDefinition, DeclaredParams>();
  for (const policy of policies) {
    for (const rule of policy.approval) {
      const keys = Object.keys(rule.when ?? {});
      if (keys.length === 0) continue;
      const tools = covered(rule);
      if (!isIterable(tools)) {
        if (tools.tools === 0) continue;
        const { names, has, open } = tools.union;
        for (const key of keys) if (!has.has(key)) problems.push(problem(policy, rule, key, tools, names, open));
        continue;
      }
      const missing = new Set(keys);
      // how many tools were read, and the first one's name: the tools themselves are not held (a `*` rule whose key no
      // tool declares read every tool of the registry, and kept each one made — at 20,000 tools of a warm cache, every
      // definition at once, and the collector's work on them ~half the walk's CPU: review Z17, Z17-5)
      let count = 0;
      let first = '';
      const params = new Set<string>();
      let open = false;
      // stops at the first tools that declare every key: a `*` rule over a large registry reads only as far as it must
      for (const tool of tools) {
        let declared = declaredOf.get(tool);
        if (!declared) declaredOf.set(tool, (declared = declaredParams(tool.params_schema)));
        if (count++ === 0) first = tool.name;
        for (const name of declared.names) params.add(name);
        open ||= declared.open;
        for (const key of missing) if (declared.names.has(key)) missing.delete(key);
        if (missing.size === 0) break;
      }
      if (count === 0) continue;
      for (const key of missing) problems.push(problem(policy, rule, key, { tools: count, first }, [...params], open));
    }
  }
  return problems;
}

function problem(policy: PolicyDefinition, rule: ApprovalRule, key: string, { tools, first }: { tools: number; first: string }, params: readonly string[], open: boolean): Diagnostic {
  const at = rule.when_at?.find((place) => place.param === key) ?? rule.at;
  // every declared param the key is one slip from: a tie (`post` beside `host` and `port`) is a slip all the same (review Z18, Z18-2)
  const near = nearWords(key, params);
  const which = tools === 1 ? `${first} does not take (its params: ${said(params)})` : `none of the ${tools} tools it covers takes (their params: ${said(params)})`;
  const best = nearWord(key, params);
  const guess = near.length > 0 ? `; did you mean ${best !== undefined ? `'${best}'` : orList(near.slice(0, NAMED).map((name) => `'${name}'`))}?` : '';
  if (open && near.length === 0) {
    return {
      file: policy.source.path, line: at.line, column: at.column, severity: 'warning', code: 'UNKNOWN_PARAM',
      message: `policy '${policy.name}' conditions on '${key}', which ${which}${guess} — a schema there lets other params through, so the condition holds only when a caller sends '${key}' itself`,
    };
  }
  return {
    file: policy.source.path, line: at.line, column: at.column, severity: 'error', code: 'UNKNOWN_PARAM',
    message: `policy '${policy.name}' conditions on '${key}', which ${which}${guess} (a condition on a param no call has never holds, so the rule would match nothing and not stop what it was written to stop: the policy is refused whole${open ? `; a schema there lets other params through, but '${key}' one slip from a declared param is read as that slip` : ''})`,
  };
}

function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
}

function said(params: readonly string[]): string {
  if (params.length === 0) return 'none';
  return params.slice(0, NAMED).join(', ') + (params.length > NAMED ? ` and ${params.length - NAMED} more` : '');
}

function isIterable(covered: Iterable<ToolDefinition> | CoveredParams): covered is Iterable<ToolDefinition> {
  return Symbol.iterator in covered;
}
