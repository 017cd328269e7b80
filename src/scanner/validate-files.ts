import type { Diagnostic } from '../core/index.js';
import { buildIndex, parseEntry } from './build-index.js';
import type { DefinitionFile } from './parse-tool-definition.js';

/** Every problem in a set of definitions, including collisions between them: what `hldp validate` reports. */
export function validateDefinitionFiles(files: DefinitionFile[]): { errors: Diagnostic[]; warnings: Diagnostic[]; tools: number } {
  const index = buildIndex('validate', 'working-tree', files.map(parseEntry), new Date().toISOString());
  return { errors: index.errors, warnings: index.warnings, tools: index.tools.length };
}
