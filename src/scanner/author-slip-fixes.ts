import type { SchemaProblem } from './shape-checker.js';
import { countedDocument } from './counted-document.js';
import { documentJS } from './document-js.js';

/**
 * Shape problems told with the fix an author needs (review userZ7, F5, F13, F16): `created` missing is told its format
 * (`params_schema` missing, that a tool without parameters writes `params_schema: {}`); a
 * non-ASCII `name` is pointed to `aliases`; `shell.argv` written as one command line is shown as the list it would be;
 * a `timeout` beside argv (or anywhere but `constraints`) is told `constraints.timeout_ms`, in milliseconds.
 */
export function withAuthorSlipFixes(value: Record<string, unknown>, problems: SchemaProblem[]): SchemaProblem[] {
  return problems.map((problem) => {
    const fix = fixFor(value, problem);
    return fix === undefined ? problem : { ...problem, message: fix };
  });
}

function fixFor(value: Record<string, unknown>, problem: SchemaProblem): string | undefined {
  const { path, message } = problem;
  if (problem.missing === 'created' && path.length === 0) {
    return `${message}: the day the tool was written, an ISO date such as created: 2026-05-31 (a time may follow: 2026-05-31T14:30Z)`;
  }
  // review userZ10, U10-13: a tool that takes nothing still declares so
  if (problem.missing === 'params_schema' && path.length === 0) return `${message}: a tool without parameters writes params_schema: {}`;
  if (!problem.atKey && path.length === 1 && path[0] === 'name' && typeof value.name === 'string' && /[^\x00-\x7f]/.test(value.name)) {
    return `${message}; names in other scripts go in 'aliases' (any language): name: weather in tools/weather/, with aliases: [${value.name}]`;
  }
  if (!problem.atKey && path.length === 2 && path[0] === 'shell' && path[1] === 'argv') {
    const argv = (value.shell as { argv?: unknown } | null)?.argv;
    return typeof argv === 'string' ? `${message}${argvListFix(argv)}` : undefined;
  }
  const field = String(path.at(-1) ?? '');
  if (problem.atKey && message.startsWith('unknown field') && TIMEOUT_FIELD.test(field) && !(path.length === 2 && path[0] === 'constraints')) {
    return `unknown field '${path.join('.')}': a tool's deadline is 'constraints.timeout_ms', in milliseconds (${timeoutExample(field, valueOf(value, path))})`;
  }
  return undefined;
}

// `timeout`, `timeout_ms`, `timeout_s`, `timeout_seconds`, in any case
const TIMEOUT_FIELD = /^timeout(_?(ms|s|secs?|seconds))?$/i;

function timeoutExample(field: string, written: unknown): string {
  const seconds = !/_?ms$/i.test(field);
  if (typeof written !== 'number' || !(written > 0)) return 'constraints: {timeout_ms: 10000} for 10 s';
  const ms = Math.round(seconds ? written * 1000 : written);
  return seconds ? `constraints: {timeout_ms: ${ms}} for ${written} s` : `constraints: {timeout_ms: ${ms}}`;
}

function valueOf(value: Record<string, unknown>, path: ReadonlyArray<string | number>): unknown {
  let found: unknown = value;
  for (const key of path) found = typeof found === 'object' && found !== null && Object.hasOwn(found, key) ? (found as Record<string, unknown>)[key] : undefined;
  return found;
}

// what a shell would read specially: such a line is a script, not a list of arguments
const SHELL_SYNTAX = /[|&;<>$`\\'"()*?~]/;

// `argv: "tar czf {out} {folder}"`: the list it would be, each placeholder quoted as YAML needs it
function argvListFix(line: string): string {
  const words = line.trim().split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return '';
  if (SHELL_SYNTAX.test(line)) return `; a command line with quotes, pipes or redirections is a script: write it as shell.script (parameters are "$HLDP_PARAM_<NAME>" there), or as a list, argv: [${words[0]}, …]`;
  // plain where YAML reads the word back as that text in a flow list; else in double quotes (`{out}` unquoted is a
  // mapping, `1.50` a number whose text is 1.5, `null` nothing)
  const quoted = words.map((word) => (readsAsItself(word) ? word : JSON.stringify(word)));
  return `; write it as a list, one argument each: argv: [${quoted.join(', ')}]`;
}

function readsAsItself(word: string): boolean {
  try {
    // a word of a definition's line may be thousands of brackets: counted before yaml builds it, as the line's file was
    const counted = countedDocument(`[${word}]`, { logLevel: 'error' });
    if ('refused' in counted || counted.document.errors.length > 0) return false;
    const read: unknown = documentJS(counted.document);
    return Array.isArray(read) && read.length === 1 && read[0] === word;
  } catch {
    return false;
  }
}
