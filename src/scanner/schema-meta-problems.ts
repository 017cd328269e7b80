import type { ErrorObject } from 'ajv/dist/2020.js';
import { isTypeKeywordPath, jsonTypeHint, JSON_TYPES } from './json-type-words.js';
import type { SchemaProblem } from './shape-checker.js';
import { splitInstancePath } from './yaml-locator.js';

/** Where a path of the checked schema is written in the file (`['params_schema', …]`, `['output_schema', …]`). */
export type WrittenPath = (path: Array<string | number>) => Array<string | number>;

/**
 * The JSON Schema meta-schema's errors about a schema an author wrote, in the author's terms (review userY, Y7): one
 * problem per wrong `type`, with the JSON type a word like `int` means, rather than ajv's three (`must be equal to one
 * of the allowed values`, `must be array`, `must match a schema in anyOf`); `required: true` on a property told that
 * `required` is the object's list.
 */
export function metaSchemaProblems(schema: unknown, errors: readonly ErrorObject[], toWritten: WrittenPath): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const told = new Set<string>();
  for (const error of errors) {
    const path = splitInstancePath(error.instancePath);
    const typeAt = typeKeywordAt(path);
    if (typeAt !== undefined) {
      const key = typeAt.join('/');
      if (told.has(key)) continue;
      told.add(key);
      const written = toWritten(typeAt);
      const hint = jsonTypeHint(valueAt(schema, typeAt));
      problems.push({ path: written, atKey: false, message: `'${written.join('.')}' must be a JSON Schema type (${JSON_TYPES.join(', ')}) or a list of them${hint}` });
      continue;
    }
    const flag = requiredFlag(schema, path);
    if (flag !== undefined) {
      problems.push({ path: toWritten(path), atKey: true, message: requiredFlagMessage(flag, toWritten) });
      continue;
    }
    const written = toWritten(path);
    const message = `'${written.join('.')}' is not valid JSON Schema: ${oldDraftHint(path, valueAt(schema, path)) ?? error.message ?? 'invalid'}`;
    // ajv reports one wrong keyword once per branch of the meta-schema it tried: the author reads it once (review userZ2, U10)
    if (told.has(message)) continue;
    told.add(message);
    problems.push({ path: written, atKey: false, message });
  }
  return problems;
}

// an older draft's idiom 2020-12 writes otherwise: a tuple `items: [...]`, draft-04's boolean `exclusiveMinimum`
function oldDraftHint(path: Array<string | number>, value: unknown): string | undefined {
  const keyword = path.at(-1);
  if (keyword === 'items' && Array.isArray(value)) return 'a list under `items` is an older draft\'s tuple; in JSON Schema 2020-12 a tuple is `prefixItems: [...]`';
  if ((keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') && typeof value === 'boolean') {
    const bound = keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    return `a boolean here is draft-04's; write the bound itself: \`${keyword}: 0\` instead of \`${bound}: 0\` with \`${keyword}: true\``;
  }
  return undefined;
}

/**
 * The draft-3 habit `required: true` (or false) written on each property of a full object schema, as the properties it
 * marks required: where a check reads the schema, they are read as the author meant them.
 */
export function requiredFlags(schema: unknown): Array<{ object: Array<string | number>; property: string; required: boolean }> {
  const found: Array<{ object: Array<string | number>; property: string; required: boolean }> = [];
  const visit = (node: unknown, path: Array<string | number>, depth: number): void => {
    if (!isMapping(node) || depth > 32) return;
    if (isMapping(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) {
        if (isMapping(property) && typeof property.required === 'boolean') found.push({ object: path, property: name, required: property.required });
        visit(property, [...path, 'properties', name], depth + 1);
      }
    }
    if (isMapping(node.items)) visit(node.items, [...path, 'items'], depth + 1);
  };
  visit(schema, [], 0);
  return found;
}

// the `type` keyword an error is at or inside (an item of its list), or undefined
function typeKeywordAt(path: Array<string | number>): Array<string | number> | undefined {
  if (!isTypeKeywordPath(path)) return undefined;
  return typeof path.at(-1) === 'number' ? path.slice(0, -1) : path;
}

// `…properties.<name>.required` holding a boolean: the property and the object whose `required` list it belongs in
function requiredFlag(schema: unknown, path: Array<string | number>): { object: Array<string | number>; property: string; required: boolean } | undefined {
  if (path.length < 3 || path.at(-1) !== 'required' || path.at(-3) !== 'properties') return undefined;
  const value = valueAt(schema, path);
  return typeof value === 'boolean' ? { object: path.slice(0, -3), property: String(path.at(-2)), required: value } : undefined;
}

function requiredFlagMessage(flag: { object: Array<string | number>; property: string; required: boolean }, toWritten: WrittenPath): string {
  const list = [...toWritten(flag.object), 'required'].join('.');
  const habit = `'required: ${String(flag.required)}' on a property is not JSON Schema (an old draft's habit): in JSON Schema \`required\` is a list on the object`;
  return flag.required
    ? `${habit}: add '${flag.property}' to ${list} (required: [${flag.property}]) and remove this line`
    : `${habit}, and a property it does not name is optional: remove this line`;
}

/** The value at a JSON path of a parsed value; undefined where the path leaves it. */
export function valueAt(schema: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = schema;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
