import {
  type EntryKind,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type Diagnostic,
  type DiagnosticCode,
  type ExecutorName,
  type ToolDefinition,
  type ArgvTemplate,
  type ShellSpec,
} from '../core/index.js';
import { checkContents, checkContentsBeside, type ProblemReporter } from './content-checks.js';
import { strayExecutorBlocks } from './executor-blocks.js';
import type { ScriptProblem } from './script-variable-check.js';
import type { SchemaProblem } from './shape-checker.js';
import { reservedNameProblems } from './reserved-names.js';
import { invisibleTextDiagnostics } from './invisible-text.js';
import { checkToolShape } from './tool-schema.js';
import { definitionText, guardParse, hasErrors, readYamlMapping, type ParseOptions } from './yaml-mapping.js';
import type { Locator, Position } from './yaml-locator.js';

/** One `TOOL.hdlp` (or `TOOLSET.hdlp`, `SKILL.md`) as read from a source. */
export interface DefinitionFile {
  /** what the file defines; a tool when absent */
  kind?: EntryKind;
  /** path shown in diagnostics, e.g. `tools/git-ops/TOOL.hdlp` */
  path: string;
  /** the name of the folder it sits in, which `name` must equal */
  folder: string;
  /** the source's id for this tool's content (tree or blob oid) */
  oid: string;
  content: Uint8Array;
}

/** The definition if it is valid, and every problem found either way. */
export interface ParsedDefinition {
  tool: ToolDefinition | null;
  diagnostics: Diagnostic[];
  /** where `name` is written, so a later collision can point at it */
  namePosition?: Position;
}

/**
 * Parses and validates one `TOOL.hdlp`, pointing each problem at its line and column. It never throws:
 * whatever a file holds (an alias bomb, 10,000 levels of nesting, bytes that are not text) becomes
 * that file's diagnostics, so one file can never stop a scan or the process.
 */
export function parseToolDefinition(file: DefinitionFile, options: ParseOptions = {}): ParsedDefinition {
  return guardParse(
    file,
    'TOOL.hdlp',
    () => {
      const read = definitionText(file, 'TOOL.hdlp', options);
      if ('diagnostic' in read) return { tool: null, diagnostics: [read.diagnostic] };
      const mapping = readYamlMapping(file, read.text, 'TOOL.hdlp', 'name, display, intent, ...', options);
      if (!mapping.ok) return { tool: null, diagnostics: mapping.diagnostics };
      const parsed = validateDefinition(file, mapping.value, mapping.locator, options);
      // what the reading itself found (a '- ' item YAML folded into the value above it) is told beside the checks
      parsed.diagnostics.push(...mapping.report.diagnostics);
      const hidden = invisibleTextDiagnostics(file.path, read.text, mapping.value, mapping.locator);
      return hidden.length ? { tool: null, diagnostics: [...parsed.diagnostics, ...hidden] } : parsed;
    },
    (diagnostic) => ({ tool: null, diagnostics: [diagnostic] }),
  );
}

function validateDefinition(file: DefinitionFile, value: Record<string, unknown>, locator: Locator, options: ParseOptions): ParsedDefinition {
  const diagnostics: Diagnostic[] = [];
  // where each error is, so that the checks past the shape can run beside them over the rest
  const errorPaths: Array<Array<string | number>> = [];
  const report: ProblemReporter = (code, problem, severity = 'error') => {
    // a problem inside a text (a line of shell.script) is pointed at where it is written, when that can be told
    const within = 'within' in problem ? (problem as ScriptProblem).within : undefined;
    const { line, column } = (within && locator.within?.(problem.path, within.text, within.occurrence)) ?? locator.locate(problem.path, problem.atKey);
    diagnostics.push({ file: file.path, line, column, severity, code, message: problem.message });
    // a missing field is that field's error: the other fields of its mapping (`http.query` beside no `http.path`) are still checked
    if (severity === 'error') errorPaths.push(problem.missing === undefined ? problem.path : [...problem.path, problem.missing]);
  };
  for (const problem of checkToolShape(value)) report('SCHEMA_VIOLATION', problem);
  for (const problem of strayExecutorBlocks(value)) report('SCHEMA_VIOLATION', problem);
  if (typeof value.name === 'string' && value.name !== file.folder) {
    report('NAME_MISMATCH', {
      path: ['name'],
      atKey: false,
      message: `'name' is '${value.name}' but the folder is '${file.folder}': rename one so they match`,
    });
  }
  for (const problem of reservedNameProblems(value)) report('RESERVED_NAME', problem);
  if (value.executor === 'hlpd-api') {
    report('DEPRECATED_SPELLING', { path: ['executor'], atKey: false, message: "executor 'hlpd-api' is read as 'hldp-api'; write 'hldp-api'" }, 'warning');
  }
  const constraints = value.constraints as { timeout_ms?: unknown; max_timeout_ms?: unknown } | undefined;
  const timeoutMs = constraints?.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (typeof constraints?.max_timeout_ms === 'number' && typeof timeoutMs === 'number' && constraints.max_timeout_ms < timeoutMs) {
    report('SCHEMA_VIOLATION', {
      path: ['constraints', 'max_timeout_ms'],
      atKey: false,
      message: `'constraints.max_timeout_ms' (${constraints.max_timeout_ms}) is below timeout_ms (${timeoutMs}): the longest deadline a call may ask for cannot be shorter than the default one`,
    });
  }
  const created = impossibleDate(value.created);
  if (created) report('SCHEMA_VIOLATION', { path: ['created'], atKey: false, message: `'created' is ${created}, a day no calendar has: write an ISO date such as 2026-05-31` });
  if (hasErrors(diagnostics)) {
    checkContentsBeside(value, errorPaths, report, options);
    return { tool: null, diagnostics };
  }
  const checked = checkContents(value, report, options);
  if (hasErrors(diagnostics)) return { tool: null, diagnostics };
  const tool = toDefinition(file, value, checked.paramsSchema ?? {});
  if (checked.sandbox) tool.sandbox = checked.sandbox;
  return { tool, diagnostics, namePosition: locator.locate(['name']) };
}

function toDefinition(file: DefinitionFile, value: Record<string, unknown>, paramsSchema: Record<string, unknown>): ToolDefinition {
  const written = value as unknown as ToolDefinition & { constraints?: Partial<ToolDefinition['constraints']> };
  const tool: ToolDefinition = {
    name: written.name,
    display: written.display,
    intent: written.intent,
    method: written.method,
    executor: (value.executor === 'hlpd-api' ? 'hldp-api' : value.executor) as ExecutorName,
    params_schema: paramsSchema,
    constraints: {
      timeout_ms: written.constraints?.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      max_output_bytes: written.constraints?.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      require_confirm: written.constraints?.require_confirm ?? false,
      ...(written.constraints?.max_timeout_ms === undefined ? {} : { max_timeout_ms: written.constraints.max_timeout_ms }),
    },
    author: written.author,
    created: written.created,
    why: written.why,
    aliases: written.aliases ?? [],
    examples: written.examples ?? [],
    source: { path: file.path, oid: file.oid },
  };
  for (const key of ['group', 'unlisted', 'access', 'output_schema', 'shell', 'gatekeeper', 'http', 'forgejo', 'mcp'] as const) {
    if (written[key] !== undefined) Object.assign(tool, { [key]: written[key] });
  }
  if (tool.shell?.argv !== undefined) tool.shell = { ...tool.shell, argv: argvAsText(tool.shell.argv) };
  return tool;
}

// `argv: [seq, 1, 100000]`: numbers and booleans are literal arguments, as their decimal text (1.50 becomes 1.5)
function argvAsText(argv: NonNullable<ShellSpec['argv']>): NonNullable<ShellSpec['argv']> {
  const text = (item: unknown): string => (typeof item === 'string' ? item : String(item));
  const list = (template: unknown[]): ArgvTemplate => template.map((item) => (Array.isArray(item) ? item.map(text) : text(item)));
  if (Array.isArray(argv)) return list(argv);
  return Object.fromEntries(Object.entries(argv).map(([key, template]) => [key, list(template)]));
}

// the schema's pattern takes 2026-02-30 and 2026-13-01 (review R, R13): the date part, if it is not a real day
function impossibleDate(created: unknown): string | undefined {
  const match = typeof created === 'string' ? /^(\d{4})-(\d{2})-(\d{2})/.exec(created) : null;
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const days = month >= 1 && month <= 12 ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 0;
  return day >= 1 && day <= days ? undefined : match[0];
}
