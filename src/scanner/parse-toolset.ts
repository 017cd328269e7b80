import { readFileSync } from 'node:fs';
import type { Diagnostic, ToolsetDefinition } from '../core/index.js';
import { invisibleTextDiagnostics } from './invisible-text.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { compileShapeChecker, type ShapeChecker } from './shape-checker.js';
import { definitionText, hasErrors, readYamlMapping, type ParseOptions } from './yaml-mapping.js';
import type { Position } from './yaml-locator.js';

/** Where the `TOOLSET.hdlp` JSON Schema lives. */
export const TOOLSET_SCHEMA_URL = new URL('../../schemas/toolset.schema.json', import.meta.url);

let checker: ShapeChecker | undefined;

/** A toolset if its file is valid on its own (its members are checked against the index later), and every problem found. */
export interface ParsedToolset {
  toolset: ToolsetDefinition | null;
  diagnostics: Diagnostic[];
  namePosition?: Position;
  /** where each entry of `tools` is written, so an unknown member is pointed at */
  memberPositions?: Position[];
}

/** Parses and validates one `TOOLSET.hdlp`, pointing each problem at its line and column. */
export function parseToolset(file: DefinitionFile, options: ParseOptions = {}): ParsedToolset {
  const read = definitionText(file, 'TOOLSET.hdlp', options);
  if ('diagnostic' in read) return { toolset: null, diagnostics: [read.diagnostic] };
  const mapping = readYamlMapping(file, read.text, 'TOOLSET.hdlp', 'name, description, tools, hint, author, why', options);
  if (!mapping.ok) return { toolset: null, diagnostics: mapping.diagnostics };
  const { value, locator, report } = mapping;
  checker ??= compileShapeChecker(JSON.parse(readFileSync(TOOLSET_SCHEMA_URL, 'utf8')) as object, 'TOOLSET.hdlp', { ownSchema: true });
  for (const problem of checker(value)) report('SCHEMA_VIOLATION', problem);
  if (typeof value.name === 'string' && value.name !== file.folder) {
    report('NAME_MISMATCH', { path: ['name'], atKey: false, message: `'name' is '${value.name}' but the folder is '${file.folder}': rename one so they match` });
  }
  // a toolset's description and hint reach agents as a tool's do: what a reviewer cannot see is refused alike
  const hidden = invisibleTextDiagnostics(file.path, read.text, value, locator);
  if (hasErrors(report.diagnostics) || hidden.length) return { toolset: null, diagnostics: [...report.diagnostics, ...hidden] };
  const tools = (value.tools as string[] | undefined) ?? [];
  const toolset: ToolsetDefinition = {
    name: value.name as string,
    description: value.description as string,
    tools,
    ...(typeof value.hint === 'string' ? { hint: value.hint } : {}),
    author: value.author as string,
    why: value.why as string,
    source: { path: file.path, oid: file.oid },
  };
  return {
    toolset,
    diagnostics: report.diagnostics,
    namePosition: locator.locate(['name']),
    memberPositions: tools.map((_, index) => locator.locate(['tools', index])),
  };
}
