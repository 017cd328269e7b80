import { readFileSync } from 'node:fs';
import { withAuthorSlipFixes } from './author-slip-fixes.js';
import { withBlockFieldHints, type BlockFields } from './block-field-hints.js';
import { withHttpFixes } from './http-block-checks.js';
import { compileShapeChecker, type SchemaProblem, type ShapeChecker } from './shape-checker.js';
import { withUnquotedPlaceholders } from './unquoted-placeholders.js';

/** Where the `TOOL.hdlp` JSON Schema lives: `schemas/` at the package root (same depth from `src/` and `dist/`). */
export const TOOL_SCHEMA_URL = new URL('../../schemas/tool.schema.json', import.meta.url);

let checker: ShapeChecker | undefined;
let blocks: BlockFields | undefined;

/** Checks a parsed definition against `schemas/tool.schema.json` (compiled once per process). */
export function checkToolShape(value: unknown): SchemaProblem[] {
  if (!checker) {
    const schema = JSON.parse(readFileSync(TOOL_SCHEMA_URL, 'utf8')) as ToolSchema;
    checker = compileShapeChecker(schema, 'TOOL.hdlp', { ownSchema: true, fromYaml: true });
    blocks = blockFields(schema);
  }
  const problems = checker(value);
  if (problems.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return problems;
  const definition = value as Record<string, unknown>;
  return withUnquotedPlaceholders(definition, withBlockFieldHints(definition, withAuthorSlipFixes(definition, withHttpFixes(definition, problems)), blocks!));
}

interface ObjectSchema {
  properties?: Record<string, ObjectSchema & { $ref?: string }>;
}

interface ToolSchema extends ObjectSchema {
  $defs?: Record<string, ObjectSchema>;
}

// each top-level field that is a block of fields of its own (shell, http, constraints, sandbox, …), with those fields
function blockFields(schema: ToolSchema): BlockFields {
  const fields = new Map<string, string[]>();
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const target = property.$ref?.startsWith('#/$defs/') ? schema.$defs?.[property.$ref.slice('#/$defs/'.length)] : property;
    const names = Object.keys(target?.properties ?? {});
    if (names.length > 0) fields.set(name, names);
  }
  return fields;
}
