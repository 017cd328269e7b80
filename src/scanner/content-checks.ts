import type { DeclaredSandbox, Diagnostic, DiagnosticCode, JsonSchema } from '../core/index.js';
import { checkExecutorMethod, checkMethodParameters } from './executor-method-check.js';
import { normaliseParamsSchema } from './params-schema.js';
import { checkRequiredDeclared } from './required-checks.js';
import { ceilingWarnings, checkSandbox, refusedSandboxPaths, runsProcesses } from './sandbox-checks.js';
import { checkUndeclaredScriptVariables } from './script-variable-check.js';
import { unusedParameters } from './unused-parameters.js';
import type { SchemaProblem } from './shape-checker.js';
import { checkArgvFillable, checkEnvironment, checkOptionLikeArguments, checkScriptPlaceholders, checkScriptVariables, checkTemplates } from './template-checks.js';
import type { ParseOptions } from './yaml-mapping.js';
import { definitionSlips } from './definition-slips.js';
import { checkHttpHeaders } from './http-block-checks.js';

/** Adds a problem of a definition as a located diagnostic. */
export type ProblemReporter = (code: DiagnosticCode, problem: SchemaProblem, severity?: Diagnostic['severity']) => void;

/**
 * The checks of a tool's contents past its shape: its params schema, the templates and variables that use it, its
 * method and its sandbox. `value` holds only fields whose shape is right; without `params_schema` the checks that
 * read it are left out.
 */
export function checkContents(value: Record<string, unknown>, report: ProblemReporter, options: ParseOptions): { paramsSchema?: JsonSchema; sandbox?: DeclaredSandbox } {
  const params = value.params_schema === undefined ? undefined : normaliseParamsSchema(value.params_schema as Record<string, unknown>);
  if (params) {
    for (const problem of params.problems) report('INVALID_PARAMS_SCHEMA', problem);
    if (params.problems.length === 0) for (const problem of checkRequiredDeclared(params.schema)) report('INVALID_PARAMS_SCHEMA', problem);
    for (const problem of params.patternProblems) report('UNSUPPORTED_PATTERN', problem);
    for (const problem of params.costProblems) report('COSTLY_PARAMS_SCHEMA', problem);
    for (const problem of checkTemplates(value, params.schema)) report('UNKNOWN_PLACEHOLDER', problem);
  }
  for (const problem of checkEnvironment(value)) report('UNSAFE_ENV_VARIABLE', problem);
  for (const problem of checkHttpHeaders(value)) report('UNSAFE_HTTP_HEADER', problem);
  if (params) {
    for (const problem of checkArgvFillable(value, params.schema)) report('UNFILLABLE_TEMPLATE', problem);
    for (const problem of checkOptionLikeArguments(value, params.schema)) report('OPTION_LIKE_ARGUMENT', problem, 'warning');
    for (const problem of checkScriptVariables(value, params.schema)) report('SHARED_SCRIPT_VARIABLE', problem, 'warning');
    for (const problem of checkScriptPlaceholders(value, params.schema)) report('SCRIPT_PLACEHOLDER', problem);
    for (const problem of checkUndeclaredScriptVariables(value, params.schema)) report('UNDECLARED_SCRIPT_VARIABLE', problem, problem.severity);
    for (const problem of checkMethodParameters(value, params.schema)) report('METHOD_PARAMS_MISMATCH', problem, problem.severity);
    // of a params schema that reads as written (a parameter whose own schema is broken is told that first)
    if (params.problems.length === 0) for (const problem of unusedParameters(value, params.schema)) report('UNUSED_PARAMETER', problem, 'warning');
  }
  for (const problem of checkExecutorMethod(value)) report('UNKNOWN_METHOD', problem, problem.severity);
  const sandbox = checkSandbox(value);
  for (const problem of sandbox.errors) report('INVALID_SANDBOX', problem);
  for (const problem of sandbox.warnings) report('SANDBOX_IGNORED', problem, 'warning');
  if (options.sandboxCeiling && sandbox.sandbox) {
    for (const problem of ceilingWarnings(sandbox.sandbox, options.sandboxCeiling)) report('BEYOND_SANDBOX_CEILING', problem, 'warning');
  }
  if (options.callCeilingMs !== undefined) for (const problem of beyondCallCeiling(value, options.callCeilingMs)) report('BEYOND_CALL_CEILING', problem, 'warning');
  if (options.sandboxPathRefusal && sandbox.sandbox?.filesystem && runsProcesses(value)) {
    for (const problem of refusedSandboxPaths(sandbox.sandbox.filesystem, options.sandboxPathRefusal)) report('REFUSED_SANDBOX_PATH', problem);
  }
  // review userY, Y2 and Y7: the http block's method, a template no call picks, an output schema that is no JSON Schema
  for (const { code, problem, severity } of definitionSlips(value, params?.schema)) report(code, problem, severity);
  return { ...(params ? { paramsSchema: params.schema } : {}), ...(sandbox.sandbox ? { sandbox: sandbox.sandbox } : {}) };
}

/**
 * A definition whose shape is wrong somewhere, checked on anyway so that its author sees every independent problem at
 * once, not one batch per fix (review R, R5): the checks run over the fields no error was found in, a problem inside
 * one already reported is not told twice, and a check that trips over a malformed part adds nothing.
 */
export function checkContentsBeside(value: Record<string, unknown>, errorPaths: ReadonlyArray<ReadonlyArray<string | number>>, report: ProblemReporter, options: ParseOptions): void {
  const broken = new Set(errorPaths.filter((path) => path.length > 0).map((path) => String(path[0])));
  // a sandbox is judged by the executor and method it runs under
  if (broken.has('executor') || broken.has('method')) broken.add('sandbox');
  const sound = Object.fromEntries(Object.entries(value).filter(([key]) => !broken.has(key) || (key === 'params_schema' && isReadableParamsSchema(value.params_schema))));
  // an http block's fields are each checked on their own: a wrong `path` does not hide a `query` naming no parameter (review userY, Y2)
  if (broken.has('http') && isMapping(value.http)) sound.http = soundFields(value.http, errorPaths, 'http');
  const reportNew: ProblemReporter = (code, problem, severity) => {
    if (errorPaths.some((path) => path.length > 0 && isWithin(problem.path, path))) return;
    report(code, problem, severity);
  };
  try {
    checkContents(sound, reportNew, options);
    // a path told to begin with '/' still has its placeholders checked, as if the '/' were there (review userZ9, U9-4)
    const path = isMapping(value.http) ? value.http.path : undefined;
    if (typeof path === 'string' && sound.http !== undefined && !Object.hasOwn(sound.http as object, 'path') && isMapping(sound.params_schema)) {
      const params = normaliseParamsSchema(sound.params_schema);
      for (const problem of checkTemplates({ http: { path } }, params.schema)) report('UNKNOWN_PLACEHOLDER', problem);
    }
  } catch {
    // the definition is refused already; its other problems are told once its shape is right
  }
}

// the fields of a block no error is in or under; none when the error is the block's own (not a mapping, say)
function soundFields(block: Record<string, unknown>, errorPaths: ReadonlyArray<ReadonlyArray<string | number>>, name: string): Record<string, unknown> {
  const within = errorPaths.filter((path) => path[0] === name);
  if (within.some((path) => path.length < 2)) return {};
  const broken = new Set(within.map((path) => String(path[1])));
  return Object.fromEntries(Object.entries(block).filter(([key]) => !broken.has(key)));
}

// a params schema with a wrong keyword is still read for what it declares: a mapping (of mappings, in the shorthand)
function isReadableParamsSchema(schema: unknown): boolean {
  if (!isMapping(schema)) return false;
  return schema.type === 'object' || Object.values(schema).every(isMapping);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWithin(path: ReadonlyArray<string | number>, ancestor: ReadonlyArray<string | number>): boolean {
  return ancestor.length <= path.length && ancestor.every((key, index) => String(key) === String(path[index]));
}

/**
 * A tool's deadlines above the gateway's `max_call_timeout_ms`: each call is cut to the ceiling (`timeout_from:
 * "ceiling"`), so a nightly job of 24 h written for a gateway of an hour's ceiling is killed at its first hour, which
 * nothing said before its first night (review userZ9, U9-2).
 */
function beyondCallCeiling(value: Record<string, unknown>, ceilingMs: number): SchemaProblem[] {
  const constraints = value.constraints as { timeout_ms?: unknown; max_timeout_ms?: unknown } | undefined;
  const problems: SchemaProblem[] = [];
  for (const field of ['timeout_ms', 'max_timeout_ms'] as const) {
    const written = constraints?.[field];
    if (typeof written !== 'number' || written <= ceilingMs) continue;
    const cut = field === 'timeout_ms' ? 'its calls are cut to' : 'a call may ask for at most';
    problems.push({
      path: ['constraints', field],
      atKey: false,
      message: `'constraints.${field}' (${written} ms) is above this gateway's max_call_timeout_ms (${ceilingMs} ms): ${cut} ${ceilingMs} ms there; raise max_call_timeout_ms in its config (or HLDP_MAX_CALL_TIMEOUT_MS) if the tool needs longer`,
    });
  }
  return problems;
}
