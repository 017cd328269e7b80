import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Document, isScalar, parse, visit } from 'yaml';
import { INVISIBLE_CHARACTERS } from '../core/index.js';
import { exportNames } from '../export/index.js';

/** Longest registry name: the schema's and the MCP name limit (SEP-986). */
const MAX_NAME_LENGTH = 128;

/** Keywords of a JSON Schema document, not of the schema itself: our validator speaks draft 2020-12 and reads none of them. */
const DOCUMENT_KEYWORDS = ['$schema', '$id'];

/** One `TOOL.hdlp` drafted from a server's `tools/list`. */
export interface ToolDraft {
  /** the registry name, which is also its folder's */
  name: string;
  /** the tool's name on the server */
  remote: string;
  text: string;
}

/**
 * Registry names for a server's tools (seed 003): `mcp_<server>_<tool>` in the providers' alphabet (letters,
 * digits, `_`, `-`), at most 128 characters; a name that had to change, or to be cut, ends in a stable fingerprint
 * of the full name, so two long names with the same start never collapse and a name never changes between runs.
 */
export function registryNames(server: string, tools: readonly string[]): Map<string, string> {
  const prefixed = tools.map((tool) => `mcp_${server}_${tool}`);
  const names = exportNames(prefixed, MAX_NAME_LENGTH);
  return new Map(tools.map((tool, index) => [tool, names.get(prefixed[index]!)!]));
}

/** The drafts of every tool `server` lists, dated `today` (YYYY-MM-DD). */
export function draftTools(server: string, tools: readonly Tool[], today: string): ToolDraft[] {
  const names = registryNames(server, tools.map((tool) => tool.name));
  return tools.map((tool) => {
    const name = names.get(tool.name)!;
    return { name, remote: tool.name, text: draftText(server, tool, name, today) };
  });
}

// an object schema that leaves unknown properties open
function opensParams(schema: Tool['inputSchema']): boolean {
  return schema.type === 'object' && !Object.hasOwn(schema, 'additionalProperties') && !Object.hasOwn(schema, 'unevaluatedProperties');
}

function draftText(server: string, tool: Tool, name: string, today: string): string {
  const annotations = tool.annotations ?? {};
  // the protocol's own defaults: a tool not marked read-only may change things, and destructively unless it says not
  const readOnly = annotations.readOnlyHint === true;
  const requireConfirm = !readOnly && annotations.destructiveHint !== false;
  // a call that only reads, or does no more the second time, may run again after its server died mid-call
  const idempotent = readOnly || annotations.idempotentHint === true;
  const definition: Record<string, unknown> = {
    name,
    // the first of these that says something: a blank title would fail validate
    display: [tool.title, annotations.title, tool.name].find((candidate) => typeof candidate === 'string' && candidate.trim() !== '') ?? name,
    intent: intentOf(server, tool),
    method: 'tools/call',
    executor: 'mcp',
    mcp: { server, tool: tool.name, ...(idempotent ? { idempotent: true } : {}) },
    group: `mcp_${server}`,
    params_schema: withoutDocumentKeywords(tool.inputSchema),
    ...(tool.outputSchema ? { output_schema: withoutDocumentKeywords(tool.outputSchema) } : {}),
    constraints: { require_confirm: requireConfirm },
    author: '',
    created: today,
    why: '',
  };
  const written = yamlText(definition);
  const body = written.text
    .replace(/^author: ""$/m, 'author: ""   # fill in: who wrote this definition (your persona id)')
    .replace(/^why: ""$/m, 'why: ""      # fill in: why agents need this tool')
    .replace(/^( {2}require_confirm: \w+)$/m, `$1   # ${confirmReason(annotations, readOnly, requireConfirm)}`)
    .replace(/^( {2}idempotent: true)$/m, `$1   # ${readOnly ? 'readOnlyHint' : 'idempotentHint'}: a call whose server died mid-call is run again once`);
  // the server's words inside a comment stay on its one line: a line break in them would write YAML of the server's choosing
  const hints = Object.entries(annotations)
    .filter(([key]) => key !== 'title')
    .map(([key, value]) => oneLine(`${key}: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`));
  const hidden = written.escaped || hints.some(hasInvisible);
  return escapeInvisible([
    `# Drafted by \`hldp import mcp --server ${server}\` from the server's tools/list on ${today}.`,
    `# Review it, fill in author and why (hldp validate reports them until you do), then commit it.`,
    ...(hints.length ? [`# The server's annotations: ${hints.join(', ')}.`] : []),
    // an open schema is the server's choice, kept as it is; the reviewer is told, since a shorthand one is closed (review userZ5, F10)
    ...(opensParams(tool.inputSchema) ? ["# params_schema is the server's inputSchema, which sets no additionalProperties: a call's unknown params pass to the server unchecked (a misspelt optional one is dropped, not refused). Add additionalProperties: false to refuse them here."] : []),
    ...(hidden ? ['# The server\'s text held characters a person does not see (written below as escapes, "\\U000E0041"): hldp validate refuses them in what an agent reads; remove them.'] : []),
    body,
  ].join('\n'));
}

/**
 * `value` as YAML in which every character a reader of the file would not see (controls, bidi, zero-width and tag
 * characters, …: core's INVISIBLE_CHARACTERS) is written as a double-quoted escape (`"\U000E0041"`), so the reviewer's
 * diff shows what the server wrote (review userX, X10); the YAML reads back to the same value.
 */
export function yamlText(value: unknown): { text: string; escaped: boolean } {
  return documentText(new Document(value));
}

/** {@link yamlText} of a document already built (one read from a file keeps its comments). */
export function documentText(document: Document): { text: string; escaped: boolean } {
  let escaped = false;
  const force = (node: unknown): void => {
    if (!isScalar(node) || typeof node.value !== 'string') return;
    if (hasInvisible(node.value)) {
      node.type = 'QUOTE_DOUBLE';
      escaped = true;
    } else if (!blockReadsBack(node.value)) node.type = 'QUOTE_DOUBLE';
  };
  visit(document, { Pair: (_, pair) => force(pair.key), Scalar: (_, node) => force(node) });
  return { text: escapeInvisible(document.toString({ lineWidth: 0, flowCollectionPadding: false })), escaped };
}

/**
 * Whether yaml writes `value` (a string of several lines) in a form that reads back to it. yaml 2 writes a block scalar
 * (`|+`) for text whose leading lines hold only spaces without the indentation indicator those lines need: `" \n"`
 * read back as `"\n"`, and `"   \n \t\n"` did not read at all (CI of 407af9ec, mcp-drafts.property). Such text is
 * written double-quoted instead, where every character is kept.
 */
function blockReadsBack(value: string): boolean {
  if (!value.includes('\n')) return true;
  try {
    return parse(new Document({ value }).toString({ lineWidth: 0 })).value === value;
  } catch {
    return false;
  }
}

/** Every invisible character of `text` (YAML written with them in double-quoted scalars only, or comments) as its escape. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE_CHARACTERS, (run) => [...run].map(yamlEscape).join(''));
}

function hasInvisible(text: string): boolean {
  INVISIBLE_CHARACTERS.lastIndex = 0;
  const found = INVISIBLE_CHARACTERS.test(text);
  INVISIBLE_CHARACTERS.lastIndex = 0;
  return found;
}

// YAML's escapes: \uXXXX within the basic plane (a lone surrogate too), \UXXXXXXXX past it
function yamlEscape(character: string): string {
  const code = character.codePointAt(0)!;
  return code <= 0xffff ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}` : `\\U${code.toString(16).toUpperCase().padStart(8, '0')}`;
}

// every line break YAML or an editor might honour, as a space
function oneLine(text: string): string {
  return text.replace(/[\r\n\u0085\u2028\u2029]/g, ' ');
}

function confirmReason(annotations: Tool['annotations'] & object, readOnly: boolean, requireConfirm: boolean): string {
  if (readOnly) return 'the server marks it read-only (readOnlyHint)';
  if (!requireConfirm) return 'the server marks it not destructive (destructiveHint: false)';
  return annotations.destructiveHint === true
    ? 'destructiveHint: each call waits for a confirmation'
    : 'not marked read-only, so destructive by the protocol’s default: each call waits for a confirmation';
}

// The description's first paragraph on one line; a tool without one still says what it is.
function intentOf(server: string, tool: Tool): string {
  const [first = ''] = (tool.description ?? '').trim().split(/\n\s*\n/);
  const intent = first.replace(/\s+/g, ' ').trim();
  return intent !== '' ? withinIntentLimit(intent) : `Calls the tool '${tool.name}' of the MCP server '${server}'.`;
}

// the scanner warns of an intent over 1,000 characters (LONG_TEXT) and refuses one only past 8,000 (review Z8, Z8-2;
// b601da5): a draft keeps to the 1,000 a definition is reviewed at, its long first paragraph cut at its last
// sentence that fits, else at a word, for the author to review in the draft (review Z9, I2)
const MAX_INTENT = 1000;
function withinIntentLimit(intent: string): string {
  if ([...intent].length <= MAX_INTENT) return intent;
  const head = [...intent].slice(0, MAX_INTENT - 1).join('');
  const sentence = /^.*[.!?。！？](?=\s|$)/su.exec(head)?.[0];
  if (sentence !== undefined && sentence.length >= MAX_INTENT / 4) return sentence;
  return `${head.replace(/\s+\S*$/u, '')}…`;
}

function withoutDocumentKeywords(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !DOCUMENT_KEYWORDS.includes(key)));
}
