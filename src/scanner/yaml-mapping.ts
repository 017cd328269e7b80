import type { Document } from 'yaml';
import type { Diagnostic, DiagnosticCode, SandboxCeiling } from '../core/index.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import type { SchemaProblem } from './shape-checker.js';
import { parseYamlFast } from './yaml-fast.js';
import { YamlLocator, type Locator, type Position } from './yaml-locator.js';
import { yamlModule } from './yaml-module.js';
import { explainedSlips, syntaxMessage, unknownTags, withDuplicateKeys, YAML_OPTIONS } from './yaml-syntax-message.js';
import { firstBadByte } from './utf8-position.js';
import { foldedListItems } from './folded-list-items.js';
import { lexedPast, MAX_DEFINITION_DEPTH, MAX_DEFINITION_NODES } from './yaml-nesting.js';
import { countedDocument, NESTED_TOO_DEEP, TOO_MANY_VALUES } from './counted-document.js';
import { documentJS } from './document-js.js';

/** A definition larger than this is refused unread, unless the configuration allows more: no tool needs 1 MiB of YAML. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

export { MAX_DEFINITION_DEPTH };

/**
 * How many bytes (UTF-8) of text a definition may hold once its aliases are expanded, as a multiple of the largest
 * file accepted: without aliases a text never holds more than its file, but one anchored 0.9 MB description used by 99
 * parameters made a 90 MB entry, cache line and answer, and in the cold scan's parse thread a fatal out-of-memory that
 * ended the process (review Z10-1). 4 MiB at the default limit.
 */
export const EXPANDED_BYTES_PER_FILE_BYTE = 4;

// the first few say what is wrong; thousands (one per bracket of runaway nesting) would only cost memory
const MAX_SYNTAX_ERRORS = 10;

/** How one definition is parsed. */
export interface ParseOptions {
  /** the largest file accepted, in bytes (default {@link MAX_DEFINITION_BYTES}) */
  maxBytes?: number;
  /** `false` reads every text through `yaml`'s document, as before the fast reader (tests and benchmarks compare the two) */
  fastYaml?: boolean;
  /** a gateway's `sandbox.ceiling` and workspace (`hldp validate --config`): a `sandbox:` block beyond it is warned */
  sandboxCeiling?: { ceiling: SandboxCeiling; workspace: string };
  /** a gateway's `max_call_timeout_ms` (`hldp validate --config`): a tool's deadline above it, which the gateway cuts, is warned */
  callCeilingMs?: number;
  /** why the gateway's sandbox would refuse a declared `sandbox.filesystem` path (given by `hldp validate`, which knows the sandbox's rules) */
  sandboxPathRefusal?: (kind: 'read' | 'write', path: string) => string | undefined;
}

/** A YAML mapping read from a definition file, with the locator its diagnostics point through. */
export type YamlMapping =
  | { ok: true; value: Record<string, unknown>; locator: Locator; report: Reporter }
  | { ok: false; diagnostics: Diagnostic[] };

/** Adds a located diagnostic for a problem at a JSON path. */
export interface Reporter {
  (code: DiagnosticCode, problem: SchemaProblem, severity?: Diagnostic['severity']): void;
  readonly diagnostics: Diagnostic[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The message for a definition over the size limit, the same whether found before or after reading. */
export function tooLargeMessage(bytes: number, limit: number, label = 'TOOL.hdlp'): string {
  return `${label} is ${bytes} bytes; the limit is ${limit} (a definition needs far less: move data out of it, or raise repository.max_definition_bytes)`;
}

/** The file's text, or the diagnostic that stops it being read (too large, not UTF-8). */
export function definitionText(file: DefinitionFile, label: string, options: ParseOptions = {}): { text: string } | { diagnostic: Diagnostic } {
  const maxBytes = options.maxBytes ?? MAX_DEFINITION_BYTES;
  const at = { file: file.path, line: 1, column: 1, severity: 'error' as const };
  if (file.content.byteLength > maxBytes) return { diagnostic: { ...at, code: 'FILE_TOO_LARGE', message: tooLargeMessage(file.content.byteLength, maxBytes, label) } };
  try {
    return { text: utf8.decode(file.content) };
  } catch {
    // the first byte that is not UTF-8 is pointed at, with a word on what wrote it (userZ7, F5)
    const bad = firstBadByte(file.content);
    const where = bad ? { line: bad.line, column: bad.column } : {};
    return { diagnostic: { ...at, ...where, code: 'NOT_UTF8', message: `${label} is not UTF-8 text; save it as UTF-8${bad ? badByteHint(file.content, bad.byte) : ''}` } };
  }
}

// UTF-16 starts with its byte-order mark; a lone byte from 0x80 up is most often Latin-1 or Windows-1252 (`ä` is 0xE4)
function badByteHint(content: Uint8Array, byte: number): string {
  const hex = `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const utf16 = (content[0] === 0xff && content[1] === 0xfe) || (content[0] === 0xfe && content[1] === 0xff);
  return utf16 ? ' (it is UTF-16)' : ` (byte ${hex} here is not UTF-8: a Latin-1 or Windows-1252 file?)`;
}

/**
 * Parses `text` (the whole file, or its front matter padded so lines keep their numbers) as one YAML
 * mapping; anything else is a diagnostic naming what the file must be. Hostile YAML is refused as
 * `YAML_RESOURCE_LIMIT` before it costs memory or time: an alias bomb, runaway nesting, too many
 * values once aliases are expanded. A text holding a NUL is refused: no argument or header carries one.
 *
 * A text in the plain subset most definitions are written in is read by the fast reader (`yaml-fast.ts`), and
 * `yaml` parses it again with positions only when something asks where a path is (a diagnostic): a valid
 * definition costs one fast read; a broken one is reported exactly as `yaml` alone reports it.
 */
export function readYamlMapping(file: DefinitionFile, text: string, label: string, fields: string, options: ParseOptions = {}): YamlMapping {
  const maxExpanded = EXPANDED_BYTES_PER_FILE_BYTE * (options.maxBytes ?? MAX_DEFINITION_BYTES);
  const fast = options.fastYaml === false ? undefined : parseYamlFast(text);
  if (fast) {
    const size = measure(fast.value, maxExpanded);
    if (size.depth <= MAX_DEFINITION_DEPTH && size.nodes <= MAX_DEFINITION_NODES && size.bytes <= maxExpanded && !size.nul) {
      const locator = new LazyLocator(text, fast.offsets);
      return { ok: true, value: fast.value, locator, report: reporter(file, locator) };
    }
    // a text the fast reader read whole (no alias in it) that holds only too many values is refused from that measure,
    // as yaml's document would refuse it, at the line where the lexer's count of them goes past (the same count, for a
    // text without aliases): building yaml's document of 330,000 values to say so took 10 s and 390 MB (review Z18, Z18-3)
    if (size.depth <= MAX_DEFINITION_DEPTH && size.nodes > MAX_DEFINITION_NODES) {
      const line = lexedPast(text)?.line ?? 1;
      return { ok: false, diagnostics: [{ file: file.path, line, column: 1, severity: 'error', code: 'YAML_RESOURCE_LIMIT', message: TOO_MANY_VALUES }] };
    }
  }
  return readYamlMappingPositioned(file, text, label, fields, maxExpanded);
}

/** {@link readYamlMapping} through `yaml`'s document, with positions: what every text the fast reader gives up on takes. */
export function readYamlMappingPositioned(file: DefinitionFile, text: string, label: string, fields: string, maxExpanded = EXPANDED_BYTES_PER_FILE_BYTE * MAX_DEFINITION_BYTES): YamlMapping {
  // runaway nesting and too many values are refused before yaml builds them, at the line where the lexer's count goes
  // past: 500,000 levels in 1 MB cost its parser ~10 s and 0.9 GB (review Z15-3), 330,000 values in 660 KB ~10 s and
  // ~390 MB (review Z18-3)
  const counted = countedDocument(text, { uniqueKeys: false });
  if ('refused' in counted) return { ok: false, diagnostics: [{ file: file.path, line: counted.refused.line, column: 1, severity: 'error', code: 'YAML_RESOURCE_LIMIT', message: counted.refused.message }] };
  const { document, locator } = counted;
  withDuplicateKeys(document);
  const fail = (code: DiagnosticCode, message: string, position = { line: 1, column: 1 }): YamlMapping => ({
    ok: false,
    diagnostics: [{ file: file.path, ...position, severity: 'error', code, message }],
  });
  const tooDeep = `YAML nested too deep to read; a definition may nest at most ${MAX_DEFINITION_DEPTH} levels`;
  if (document.errors.length) {
    const slips = explainedSlips(text, document.errors);
    const told = slips.map((slip): Diagnostic => ({ file: file.path, ...locator.at(slip.offset), severity: 'error', code: 'YAML_SYNTAX', message: slip.message }));
    return {
      ok: false,
      diagnostics: [...told, ...document.errors.filter((error) => !slips.some((slip) => slip.explains(error))).slice(0, Math.max(0, MAX_SYNTAX_ERRORS - told.length)).map((error): Diagnostic => {
        const { line, column } = locator.at(error.pos[0]);
        // the parser gives up on runaway nesting with the engine's own words: say what happened
        return error.message.includes('Maximum call stack size exceeded')
          ? { file: file.path, line, column, severity: 'error', code: 'YAML_RESOURCE_LIMIT', message: tooDeep }
          : { file: file.path, line, column, severity: 'error', code: 'YAML_SYNTAX', message: syntaxMessage(error, document, locator, label, line) ?? firstLine(error.message) };
      })],
    };
  }
  // an unknown tag (`!!js/function "…"`) was read as its plain value without a word (review R, R13): an error at the tag
  const tags = unknownTags(document, text);
  if (tags.length) return { ok: false, diagnostics: tags.slice(0, MAX_SYNTAX_ERRORS).map(({ offset, message }) => ({ file: file.path, ...locator.at(offset), severity: 'error', code: 'YAML_SYNTAX', message })) };
  let value: unknown;
  try {
    value = documentJS(document);
  } catch (error) {
    if (!(error instanceof ReferenceError) && !(error instanceof RangeError)) throw error;
    const message = error instanceof ReferenceError ? 'YAML aliases expand too far (an alias bomb); use each anchor a few times at most, or write the values out' : tooDeep;
    return fail('YAML_RESOURCE_LIMIT', message, locator.at(firstAliasOffset(document)));
  }
  const size = measure(value, maxExpanded);
  if (size.depth > MAX_DEFINITION_DEPTH) return fail('YAML_RESOURCE_LIMIT', NESTED_TOO_DEEP);
  if (size.nodes > MAX_DEFINITION_NODES) {
    return fail('YAML_RESOURCE_LIMIT', TOO_MANY_VALUES, locator.at(firstAliasOffset(document)));
  }
  if (size.bytes > maxExpanded) {
    return fail('YAML_RESOURCE_LIMIT', `YAML holds more than ${maxExpanded} bytes of text once its aliases are expanded (an alias reusing a long text); use that anchor less, or write the text once`, locator.at(firstAliasOffset(document)));
  }
  if (size.nul) {
    return fail('SCHEMA_VIOLATION', `'${size.nul.join('.')}' holds a NUL character (\\0), which no argument, header or variable can carry; remove it`, locator.locate(size.nul));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null || value === undefined ? 'an empty document' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    return fail('SCHEMA_VIOLATION', `${label} must be a YAML mapping of fields (${fields}), got ${got}`);
  }
  const report = reporter(file, locator);
  for (const { offset, message } of foldedListItems(document, text)) report.diagnostics.push({ file: file.path, ...locator.at(offset), severity: 'warning', code: 'FOLDED_LIST_ITEM', message });
  return { ok: true, value: value as Record<string, unknown>, locator, report };
}

function reporter(file: DefinitionFile, locator: Locator): Reporter {
  const diagnostics: Diagnostic[] = [];
  const report = ((code, problem, severity = 'error') => {
    const { line, column } = locator.locate(problem.path, problem.atKey);
    diagnostics.push({ file: file.path, line, column, severity, code, message: problem.message });
  }) as Reporter;
  Object.defineProperty(report, 'diagnostics', { value: diagnostics });
  return report;
}

/**
 * Positions in a text the fast reader read: a top-level key's value from the offsets it noted, anything else
 * from `yaml`'s document, parsed on the first such question (a definition with a problem, or a toolset's members).
 */
class LazyLocator implements Locator {
  private positioned: YamlLocator | undefined;

  constructor(
    private readonly text: string,
    private readonly offsets: ReadonlyMap<string, number>,
  ) {}

  locate(path: ReadonlyArray<string | number>, key = false): Position {
    if (path.length === 1 && !key) {
      const offset = this.offsets.get(String(path[0]));
      if (offset !== undefined) return this.at(offset);
    }
    return this.document().locate(path, key);
  }

  within(path: ReadonlyArray<string | number>, text: string, occurrence: number): Position | undefined {
    return this.document().within(path, text, occurrence);
  }

  private document(): YamlLocator {
    if (!this.positioned) {
      const { LineCounter, parseDocument } = yamlModule();
      const lineCounter = new LineCounter();
      // positions only, of a text the fast reader read (no key twice in a mapping): yaml's own duplicate check is quadratic
      this.positioned = new YamlLocator(parseDocument(this.text, { lineCounter, ...YAML_OPTIONS, uniqueKeys: false }), lineCounter, this.text);
    }
    return this.positioned;
  }

  at(offset: number): Position {
    let line = 1;
    let start = 0;
    for (let newline = this.text.indexOf('\n'); newline >= 0 && newline < offset; newline = this.text.indexOf('\n', newline + 1)) {
      line++;
      start = newline + 1;
    }
    return { line, column: offset - start + 1 };
  }
}

/** Whether any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}

/**
 * Runs one file's parser so that it never throws: a bug of ours or of a library costs that file
 * (`PARSE_FAILED`), never the scan.
 */
export function guardParse<T>(file: DefinitionFile, label: string, parse: () => T, failed: (diagnostic: Diagnostic) => T): T {
  try {
    return parse();
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return failed({
      file: file.path, line: 1, column: 1, severity: 'error', code: 'PARSE_FAILED',
      message: `${label} could not be checked (${firstLine(reason)}); simplify the file, and report this as a brush-holder bug`,
    });
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

interface PathLink {
  key: string | number;
  parent?: PathLink | undefined;
}

/**
 * Counts the values of a parsed document as JSON would write them (a shared object or text once per
 * reference), and the UTF-8 bytes of its texts and keys, stopping past the limits (`maxBytes` the
 * bytes'); iterative, so depth cannot overflow the stack. Notes the first text holding a NUL.
 * `bytes` is a bound, 3 a UTF-16 unit (no unit takes more in UTF-8), counted exactly only when the bound passes
 * `maxBytes`: it is only compared with it, and every definition's every text and key asked `Buffer.byteLength`
 * (issue #18). Within the limit by the bound, the exact count is too, and the walk was cut by nothing else.
 */
function measure(root: unknown, maxBytes = Infinity): { nodes: number; depth: number; bytes: number; nul?: Array<string | number> } {
  const bounded = walk(root, maxBytes, utf8Bound);
  return bounded.bytes > maxBytes ? walk(root, maxBytes, Buffer.byteLength) : bounded;
}

const utf8Bound = (text: string): number => text.length * 3;

function walk(root: unknown, maxBytes: number, byteLength: (text: string) => number): { nodes: number; depth: number; bytes: number; nul?: Array<string | number> } {
  const stack: Array<{ value: unknown; level: number; link?: PathLink }> = [{ value: root, level: 1 }];
  let nodes = 0;
  let depth = 0;
  let bytes = 0;
  let nul: Array<string | number> | undefined;
  while (stack.length > 0) {
    const { value, level, link } = stack.pop()!;
    nodes += 1;
    depth = Math.max(depth, level);
    if (typeof value === 'string') {
      bytes += byteLength(value);
      if (nul === undefined && value.includes('\0')) nul = pathOf(link);
    }
    if (nodes > MAX_DEFINITION_NODES || depth > MAX_DEFINITION_DEPTH || bytes > maxBytes) break;
    if (value !== null && typeof value === 'object') {
      const list = Array.isArray(value);
      for (const [key, child] of Object.entries(value)) {
        if (!list) bytes += byteLength(key);
        stack.push({ value: child, level: level + 1, link: { key: list ? Number(key) : key, parent: link } });
      }
    }
  }
  return { nodes, depth, bytes, ...(nul ? { nul } : {}) };
}

function pathOf(link: PathLink | undefined): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at = link; at; at = at.parent) path.unshift(at.key);
  return path;
}

// an alias problem has no offset of its own: point at the first alias, where the expansion starts
function firstAliasOffset(document: Document): number {
  const { visit } = yamlModule();
  let offset = 0;
  visit(document, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}
