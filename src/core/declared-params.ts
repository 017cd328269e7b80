import type { JsonSchema } from './tool-definition.js';

/** What a tool's params_schema says of its params: the names it declares, and whether it lets others through. */
export interface DeclaredParams {
  names: ReadonlySet<string>;
  open: boolean;
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
 * document, an anchor, `$dynamicRef`) may declare anything: the schema counts as open. Closed is also a root that
 * reaches a closed subschema through `$ref` or `allOf` (`{ $ref: '#/$defs/note' }`, the note `additionalProperties:
 * false`): Ajv refuses other params there as well (review Z18, Z18-6).
 */
export function declaredParams(schema: JsonSchema): DeclaredParams {
  const names = new Set<string>();
  const seen = new Set<object>();
  let open = !closes(schema);
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

/**
 * Whether the root refuses params it does not name: its own additionalProperties or unevaluatedProperties false, or
 * those of a subschema every params object must also match — one its `$ref` points to in the same schema, or one of its
 * `allOf`, however chained (cycles cut, at most MAX_PARTS parts looked at).
 */
function closes(root: JsonSchema): boolean {
  const seen = new Set<object>();
  const next: unknown[] = [root];
  while (next.length > 0 && seen.size < MAX_PARTS) {
    const part = next.pop();
    if (!isObject(part) || seen.has(part)) continue;
    seen.add(part);
    if (part['additionalProperties'] === false) return true;
    if (part['unevaluatedProperties'] === false && !evaluatesEvery(root, part)) return true;
    if (typeof part['$ref'] === 'string') next.push(pointed(root, part['$ref']));
    if (Array.isArray(part['allOf'])) next.push(...(part['allOf'] as unknown[]));
  }
  return false;
}

/**
 * Whether `part` or a subschema applying in place to the same object (allOf/anyOf/oneOf, if/then/else,
 * dependentSchemas, a `$ref` into the same schema) has an additionalProperties other than false: it evaluates every
 * property the others do not name, so the part's `unevaluatedProperties: false` refuses none (review Z20, Z20-3: a
 * `$ref` to `{ properties, additionalProperties: { type: string }, unevaluatedProperties: false }` took extra string
 * params, and a policy's condition on one was refused as naming a param the tool does not take). A reference it cannot
 * follow, or a schema past MAX_PARTS, may hold one.
 */
function evaluatesEvery(root: JsonSchema, part: JsonSchema): boolean {
  const seen = new Set<object>();
  const next: unknown[] = [part];
  while (next.length > 0) {
    const here = next.pop();
    if (!isObject(here) || seen.has(here)) continue;
    if (seen.size >= MAX_PARTS) return true;
    seen.add(here);
    if (here['additionalProperties'] !== undefined && here['additionalProperties'] !== false) return true;
    for (const keyword of IN_PLACE) if (Array.isArray(here[keyword])) next.push(...(here[keyword] as unknown[]));
    for (const keyword of BRANCHES) next.push(here[keyword]);
    if (isObject(here['dependentSchemas'])) next.push(...Object.values(here['dependentSchemas']));
    if (here['$ref'] !== undefined) {
      const target = typeof here['$ref'] === 'string' ? pointed(root, here['$ref']) : undefined;
      if (target === undefined) return true;
      next.push(target);
    }
    if (here['$dynamicRef'] !== undefined) return true;
  }
  return false;
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
