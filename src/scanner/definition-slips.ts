import type { DiagnosticCode, JsonSchema } from '../core/index.js';
import { httpMethodWarnings } from './http-block-checks.js';
import { jsonSchemaProblems } from './params-schema.js';
import type { SchemaProblem } from './shape-checker.js';
import { unusedTemplates } from './unused-templates.js';
import { booleanArguments } from './boolean-arguments.js';
import { longTexts, selectorInstructions } from './selector-text.js';
import { noLatinText } from './latin-words.js';

/** A problem of a definition past its shape, with its code and severity. */
export interface CodedProblem {
  code: DiagnosticCode;
  severity: 'error' | 'warning';
  problem: SchemaProblem;
}

/**
 * Authors' slips the shape lets through (review userY, Y2 and Y7): an `http.method` in lower case or one few servers
 * know (warnings), a `shell.argv` template no value of its `select` parameter picks (a warning), a boolean parameter standing as a whole argv element, which becomes the text true/false (a warning;
 * review userZ3, MEDIUM 3), an `output_schema`
 * that is not JSON Schema (a warning: it is a reference, never checked against the output, and must not take a working
 * tool out of service; review userZ2, U1/U10), an intent or display instructing whoever chooses tools (a warning; review Z8, Z8-1), or longer than a listing
 * should show (a warning; review Z8, Z8-2), or with no word in Latin letters for an English request to find (a warning;
 * review userZ10, U10-11).
 */
export function definitionSlips(value: Record<string, unknown>, paramsSchema: JsonSchema | undefined): CodedProblem[] {
  const found: CodedProblem[] = httpMethodWarnings(value).map((problem) => ({ code: 'UNKNOWN_METHOD', severity: 'warning', problem }));
  if (paramsSchema) for (const problem of unusedTemplates(value, paramsSchema)) found.push({ code: 'UNUSED_TEMPLATE', severity: 'warning', problem });
  if (paramsSchema) for (const problem of booleanArguments(value, paramsSchema)) found.push({ code: 'BOOLEAN_AS_ARGUMENT', severity: 'warning', problem });
  for (const problem of selectorInstructions(value)) found.push({ code: 'SELECTOR_INSTRUCTION', severity: 'warning', problem });
  for (const problem of longTexts(value)) found.push({ code: 'LONG_TEXT', severity: 'warning', problem });
  for (const problem of noLatinText(value)) found.push({ code: 'NO_LATIN_TEXT', severity: 'warning', problem });
  const output = value.output_schema;
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) {
    for (const problem of jsonSchemaProblems(output as Record<string, unknown>, 'output_schema')) found.push({ code: 'INVALID_OUTPUT_SCHEMA', severity: 'warning', problem });
  }
  return found;
}
