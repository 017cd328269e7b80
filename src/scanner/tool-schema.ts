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
  const problems = fewerUnknownFields(checker(value));
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

// how many unknown fields a definition is told of, the last saying how many more: each is located in the text, and a
// 0.9 MB definition of 90,000 unknown keys was told of each, a walk of its mapping apiece (review Z14, Z14-3)
const MOST_UNKNOWN_FIELDS = 20;

function fewerUnknownFields(problems: SchemaProblem[]): SchemaProblem[] {
  const unknown = (problem: SchemaProblem): boolean => problem.atKey && problem.message.startsWith('unknown field');
  const count = problems.filter(unknown).length;
  if (count <= MOST_UNKNOWN_FIELDS) return problems;
  let told = 0;
  return problems.flatMap((problem) => {
    if (!unknown(problem)) return [problem];
    told++;
    if (told < MOST_UNKNOWN_FIELDS) return [problem];
    return told === MOST_UNKNOWN_FIELDS ? [{ ...problem, message: `${problem.message}; and ${count - MOST_UNKNOWN_FIELDS} more unknown fields` }] : [];
  });
}
