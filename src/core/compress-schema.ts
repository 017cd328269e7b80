import type { JsonSchema } from './tool-definition.js';

/** Largest params schema, in bytes of JSON, that `tools/list` and exports show whole (seed 003). */
export const SCHEMA_BUDGET_BYTES = 5000;

// keywords that describe a schema document or show examples: noise to a model choosing arguments
const NOISE = new Set(['$schema', '$id', '$comment', 'title', 'examples']);
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_VALUES = ['additionalProperties', 'items', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'additionalItems'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const BRANCHES = ['anyOf', 'oneOf', 'allOf'];
const DEFINITIONS = ['$defs', 'definitions'];

/** The bytes of a schema as JSON. */
export function schemaBytes(schema: unknown): number {
  return Buffer.byteLength(JSON.stringify(schema));
}

type Step = (schema: JsonSchema) => JsonSchema;

/**
 * A params schema small enough to list: one over `budget` bytes of JSON is shrunk, with losses, in seed 003's order,
 * stopping as soon as it fits — noise dropped (`$schema`, `title`, `examples`, …), descriptions cut to their first
 * sentence, `$defs` dropped (and the references into them), everything below the third level replaced by `{}`,
 * `anyOf`/`oneOf`/`allOf` replaced by `{}`. The top-level argument names always survive. Only what agents are shown
 * shrinks: calls are still validated against the full schema.
 */
export function compressSchema(schema: JsonSchema, budget = SCHEMA_BUDGET_BYTES): JsonSchema {
  if (schemaBytes(schema) <= budget) return schema;
  const steps: Step[] = [
    (current) => mapSchema(current, (node) => without(node, (key) => NOISE.has(key))),
    (current) => mapSchema(current, firstSentenceDescription),
    dropDefinitions,
    (current) => mapSchema(current, (node, level) => (level > 3 ? {} : node)),
    (current) => mapSchema(current, (node) => without(node, (key) => BRANCHES.includes(key))),
  ];
  let current = schema;
  for (const step of steps) {
    current = step(current);
    if (schemaBytes(current) <= budget) break;
  }
  return current;
}

/**
 * Rebuilds a schema top-down, `visit` seeing each subschema with its level (the root is level 1, a top-level
 * argument level 2), then the subschemas of what `visit` returned.
 */
function mapSchema(schema: JsonSchema, visit: (node: JsonSchema, level: number) => JsonSchema): JsonSchema {
  const walk = (node: unknown, level: number): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const copy: JsonSchema = { ...visit(node as JsonSchema, level) };
    for (const key of SCHEMA_MAPS) {
      const map = copy[key];
      if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
        copy[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, walk(child, level + 1)]));
      }
    }
    for (const key of SCHEMA_VALUES) if (isSchemaObject(copy[key])) copy[key] = walk(copy[key], level + 1);
    for (const key of SCHEMA_LISTS) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map((child) => walk(child, level + 1));
    return copy;
  };
  return walk(schema, 1) as JsonSchema;
}

function isSchemaObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function without(node: JsonSchema, drop: (key: string) => boolean): JsonSchema {
  return Object.keys(node).some(drop) ? Object.fromEntries(Object.entries(node).filter(([key]) => !drop(key))) : node;
}

function firstSentenceDescription(node: JsonSchema): JsonSchema {
  const description = node['description'];
  if (typeof description !== 'string') return node;
  const cut = firstSentence(description);
  return cut === description ? node : { ...node, description: cut };
}

/** Up to the end of the first sentence (`.`, `!`, `?` and their CJK forms) or the first line break. */
export function firstSentence(text: string): string {
  const line = text.trim().split(/\r?\n/)[0]!;
  const match = /^.*?[.!?](?=\s|$)|^.*?[。！？]/u.exec(line);
  return match ? match[0] : line;
}

// `$defs` dropped everywhere; a reference into them would dangle, so it becomes `{}` (anything)
function dropDefinitions(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    const reference = node['$ref'];
    if (typeof reference === 'string' && /^#\/(\$defs|definitions)\//.test(reference)) return {};
    return without(node, (key) => DEFINITIONS.includes(key));
  });
}
