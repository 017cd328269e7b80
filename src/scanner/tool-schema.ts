import { readFileSync } from 'node:fs';
import { compileShapeChecker, type SchemaProblem, type ShapeChecker } from './shape-checker.js';

/** Where the `TOOL.hdlp` JSON Schema lives: `schemas/` at the package root (same depth from `src/` and `dist/`). */
export const TOOL_SCHEMA_URL = new URL('../../schemas/tool.schema.json', import.meta.url);

let checker: ShapeChecker | undefined;

/** Checks a parsed definition against `schemas/tool.schema.json` (compiled once per process). */
export function checkToolShape(value: unknown): SchemaProblem[] {
  checker ??= compileShapeChecker(JSON.parse(readFileSync(TOOL_SCHEMA_URL, 'utf8')) as object, 'TOOL.hdlp', { ownSchema: true, fromYaml: true });
  return checker(value);
}
