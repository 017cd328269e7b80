import { nearWord, nearWords, type ApprovalRule, type Diagnostic, type JsonSchema, type PolicyDefinition, type ToolDefinition } from '../core/index.js';

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
 * and it is a warning — unless the key is one slip from a declared param (`pth` beside `path`): that is the typo U9-12
 * was, in the schema most tools have (JSON Schema's default is open), and it stays an error (review Z17, Z17-3).
 * `covered` gives the tools a rule covers (none found: nothing can be said of it).
 */
export function conditionKeyProblems(policies: readonly PolicyDefinition[], covered: (rule: ApprovalRule) => Iterable<ToolDefinition>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  // weakly: a tool of an index served from the scan cache is made for the walk alone, and must not be kept by it
  const declaredOf = new WeakMap<ToolDefinition, Declared>();
  for (const policy of policies) {
    for (const rule of policy.approval) {
      const keys = Object.keys(rule.when ?? {});
      if (keys.length === 0) continue;
      const missing = new Set(keys);
      // how many tools were read, and the first one's name: the tools themselves are not held (a `*` rule whose key no
      // tool declares read every tool of the registry, and kept each one made — at 20,000 tools of a warm cache, every
      // definition at once, and the collector's work on them ~half the walk's CPU: review Z17, Z17-5)
      let tools = 0;
      let first = '';
      const params = new Set<string>();
      let open = false;
      // stops at the first tools that declare every key: a `*` rule over a large registry reads only as far as it must
      for (const tool of covered(rule)) {
        let declared = declaredOf.get(tool);
        if (!declared) declaredOf.set(tool, (declared = declaredParams(tool.params_schema)));
        if (tools++ === 0) first = tool.name;
        for (const name of declared.names) params.add(name);
        open ||= declared.open;
        for (const key of missing) if (declared.names.has(key)) missing.delete(key);
        if (missing.size === 0) break;
      }
      if (tools === 0) continue;
      for (const key of missing) problems.push(problem(policy, rule, key, { tools, first }, [...params], open));
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

// parts of a params schema walked at most (a hostile schema's $ref cycles are cut by `seen`, its breadth by this)
const MAX_PARTS = 10_000;
// the keywords whose subschemas apply to the params object itself, and so may declare its params
const IN_PLACE = ['allOf', 'anyOf', 'oneOf'] as const;
const BRANCHES = ['if', 'then', 'else'] as const;

/**
 * The names a schema declares for the params object, and whether it lets others through (JSON Schema's default, unless
 * additionalProperties or unevaluatedProperties is false and no patternProperties could match). Declared is what any
 * subschema applying to the object itself names — its properties, required and dependent names, through allOf/anyOf/
 * oneOf however nested, if/then/else, dependentSchemas and a `$ref` to a place in the same schema (`#/$defs/…`): the
 * 2020-12 idiom `$ref` + `unevaluatedProperties: false` declares its params in `$defs`, and reading only the top's
 * properties refused a correct policy, and so every call (review Z17, Z17-1). A reference it cannot follow (another
 * document, an anchor, `$dynamicRef`) may declare anything: the schema counts as open.
 */
function declaredParams(schema: JsonSchema): Declared {
  const names = new Set<string>();
  const seen = new Set<object>();
  let open = (schema['additionalProperties'] !== false && schema['unevaluatedProperties'] !== false);
  const addNames = (list: unknown): void => {
    if (Array.isArray(list)) for (const name of list) if (typeof name === 'string') names.add(name);
  };
  const visit = (part: unknown): void => {
    if (typeof part !== 'object' || part === null || Array.isArray(part) || seen.has(part)) return;
    if (seen.size >= MAX_PARTS) {
      open = true;
      return;
    }
    seen.add(part);
    const here = part as JsonSchema;
    if (isObject(here['properties'])) for (const name of Object.keys(here['properties'])) names.add(name);
    if (here['patternProperties'] !== undefined) open = true;
    addNames(here['required']);
    if (isObject(here['dependentRequired'])) {
      for (const [name, list] of Object.entries(here['dependentRequired'])) {
        names.add(name);
        addNames(list);
      }
    }
    if (isObject(here['dependentSchemas'])) {
      for (const [name, sub] of Object.entries(here['dependentSchemas'])) {
        names.add(name);
        visit(sub);
      }
    }
    for (const keyword of IN_PLACE) if (Array.isArray(here[keyword])) (here[keyword] as unknown[]).forEach(visit);
    for (const keyword of BRANCHES) visit(here[keyword]);
    if (here['$dynamicRef'] !== undefined) open = true;
    const ref = here['$ref'];
    if (ref !== undefined) {
      const target = typeof ref === 'string' ? pointed(schema, ref) : undefined;
      if (target === undefined) open = true;
      else visit(target);
    }
  };
  visit(schema);
  return { names, open };
}

/** The place `ref` names in `root` when it is a JSON pointer into the same document (`#`, `#/$defs/note`), else undefined. */
function pointed(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let at: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
