import { LineCounter, parseDocument } from 'yaml';
import type { Diagnostic, DiagnosticCode } from '../core/index.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { MAX_DEFINITION_BYTES } from './parse-tool-definition.js';
import type { SchemaProblem } from './shape-checker.js';
import { YamlLocator } from './yaml-locator.js';

/** A YAML mapping read from a definition file, with the locator its diagnostics point through. */
export type YamlMapping =
  | { ok: true; value: Record<string, unknown>; locator: YamlLocator; report: Reporter }
  | { ok: false; diagnostics: Diagnostic[] };

/** Adds a located diagnostic for a problem at a JSON path. */
export interface Reporter {
  (code: DiagnosticCode, problem: SchemaProblem, severity?: Diagnostic['severity']): void;
  readonly diagnostics: Diagnostic[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The file's text, or the diagnostic that stops it being read (too large, not UTF-8). */
export function definitionText(file: DefinitionFile, label: string): { text: string } | { diagnostic: Diagnostic } {
  const at = { file: file.path, line: 1, column: 1, severity: 'error' as const };
  if (file.content.byteLength > MAX_DEFINITION_BYTES) {
    return { diagnostic: { ...at, code: 'FILE_TOO_LARGE', message: `${label} is ${file.content.byteLength} bytes; the limit is ${MAX_DEFINITION_BYTES}` } };
  }
  try {
    return { text: utf8.decode(file.content) };
  } catch {
    return { diagnostic: { ...at, code: 'NOT_UTF8', message: `${label} is not UTF-8 text` } };
  }
}

/**
 * Parses `text` (the whole file, or its front matter padded so lines keep their numbers) as one YAML
 * mapping; anything else is a diagnostic naming what the file must be.
 */
export function readYamlMapping(file: DefinitionFile, text: string, label: string, fields: string): YamlMapping {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locator = new YamlLocator(document, lineCounter);
  if (document.errors.length) {
    return {
      ok: false,
      diagnostics: document.errors.map((error) => {
        const { line, column } = locator.at(error.pos[0]);
        return { file: file.path, line, column, severity: 'error', code: 'YAML_SYNTAX', message: error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '') };
      }),
    };
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null || value === undefined ? 'an empty document' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    return { ok: false, diagnostics: [{ file: file.path, line: 1, column: 1, severity: 'error', code: 'SCHEMA_VIOLATION', message: `${label} must be a YAML mapping of fields (${fields}), got ${got}` }] };
  }
  const diagnostics: Diagnostic[] = [];
  const report = ((code, problem, severity = 'error') => {
    const { line, column } = locator.locate(problem.path, problem.atKey);
    diagnostics.push({ file: file.path, line, column, severity, code, message: problem.message });
  }) as Reporter;
  Object.defineProperty(report, 'diagnostics', { value: diagnostics });
  return { ok: true, value: value as Record<string, unknown>, locator, report };
}

/** Whether any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}
