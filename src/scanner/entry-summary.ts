import { declaredParams, declaredText, type ToolDefinition } from '../core/index.js';
import { entryKind, type EntryOf, type ScanEntry, type ToolStub } from './build-index.js';
import { definitionPath } from './sources/source.js';
import type { Position } from './yaml-locator.js';

/**
 * A tool as a summary keeps it: what assembling the index reads, where its entry is among the scan's, and the params
 * its schema declares (`declaredText`), which the cache keeps with the index for a policy's condition-key check
 * (review Z17, Z17-5; absent: not known, and the cache keeps none).
 */
export type ToolSummary = ToolStub & { position: number; params?: string | undefined; server?: string | null };

/**
 * What a cold scan keeps of one entry while the others are read: its kind, folder, oid, diagnostics and positions,
 * and of a tool only its names, group and path (a toolset, skill or policy is kept whole: the index holds it). The
 * entry itself is written to the cache file as it comes and read back from there when asked for.
 */
export type EntrySummary = EntryOf<ToolSummary>;

/** A parsed entry as a cold scan receives it: its summary, and its cache line (ASCII JSON, no newline). */
export interface SummarisedEntry {
  summary: EntrySummary;
  line: Uint8Array;
}

/** The summary of an entry; its tool's `position` is -1 until the scan says where the entry is. */
export function summaryOf(entry: ScanEntry): EntrySummary {
  if (entryKind(entry) !== 'tool' || !('tool' in entry)) return entry as EntrySummary;
  const { tool } = entry;
  let stub: ToolSummary | null = null;
  if (tool) {
    // the names are cut from the file's text, which each would otherwise keep; a tool named as its folder (nearly
    // all) shares the listing's string. The path is made flat: as made (a concatenation) it was a flat copy and the
    // concatenation's cell that still pointed at it, 32 bytes a tool more
    const name = tool.name === entry.folder ? entry.folder : ownString(tool.name);
    const aliases = tool.aliases.length === 0 ? NO_ALIASES : tool.aliases.map(ownString);
    // a summary made in the parse thread comes over without its prototype: its path is then its folder's usual one
    const path = (tool.source as { path?: string } | undefined)?.path ?? definitionPath(entry.folder);
    // made from the schema in the thread that parsed it; a summary made there brings its text over
    const schema = (tool as Partial<ToolDefinition>).params_schema;
    const params = schema !== undefined ? declaredText(declaredParams(schema)) : (tool as { params?: string }).params;
    stub = path === definitionPath(entry.folder) ? new FolderToolSummary(name, aliases, entry.folder, params) : { name, aliases, source: { path: flatString(path) }, position: -1, params };
    if (tool.group !== undefined) stub.group = ownString(tool.group);
    // the MCP server an mcp tool names, which a start checks against the config (review userZ11, U11-23); set on the
    // few tools that have one, as the group is. A summary's own (null: not known) is kept as it is
    const server = 'executor' in tool ? (tool.executor === 'mcp' ? tool.mcp?.server : undefined) : (tool as { server?: string | null }).server;
    if (server !== undefined) stub.server = server === null ? null : ownString(server);
  }
  // made field by field, in one order, every field in the literal: a copy by rest and spread (`{ ...rest }`) gave
  // each summary a hidden class of its own (V8 maps and their descriptors: ~240 bytes a tool, 24 MB at 100,000 tools,
  // measured in a heap snapshot), and a field added after the literal an array of its own (~40 bytes a tool)
  const summary: EntrySummary = { folder: entry.folder, oid: entry.oid, diagnostics: entry.diagnostics.length === 0 ? NO_DIAGNOSTICS : entry.diagnostics, tool: stub, name_position: sharedPosition(entry.name_position) };
  if (entry.kind !== undefined) summary.kind = entry.kind;
  return summary;
}

/**
 * The summary of a tool at its folder's usual path (`tools/<folder>/TOOL.hdlp`: nearly every tool), which makes its
 * source when asked for instead of holding it: an object and a path string a tool (~90 bytes, 9 MB at 100,000 tools)
 * for the folder's string, which the listing holds anyway. A copy keeps the prototype (`keepUniqueAliases`).
 */
class FolderToolSummary {
  position = -1;
  declare group?: string;
  declare server?: string | null;
  constructor(
    readonly name: string,
    readonly aliases: string[],
    private readonly folder: string,
    readonly params: string | undefined,
  ) {}

  get source(): { path: string } {
    return { path: definitionPath(this.folder) };
  }
}

// A tool's name is nearly always on the same line and column of its file (the first line, after `name: `): one
// frozen position each, shared by the summaries that name it, instead of an object a tool (40 bytes, 4 MB at 100,000)
const POSITIONS = new Map<number, Position>();
const MAX_SHARED_POSITIONS = 256;

function sharedPosition(position: Position | undefined): Position | undefined {
  if (position === undefined || !Number.isSafeInteger(position.line) || !Number.isSafeInteger(position.column) || position.column >= 2 ** 20) return position;
  const key = position.line * 2 ** 20 + position.column;
  let shared = POSITIONS.get(key);
  if (shared === undefined) {
    if (POSITIONS.size >= MAX_SHARED_POSITIONS) return position;
    shared = Object.freeze({ line: position.line, column: position.column });
    POSITIONS.set(key, shared);
  }
  return shared;
}

// one empty list of aliases shared by the tools that name none, frozen as NO_DIAGNOSTICS is
const NO_ALIASES = Object.freeze([]) as unknown as string[];

/** `text` as a flat string of its own (a concatenation's result is a tree of its parts until it is flattened). */
function flatString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

// one empty list shared by every summary without diagnostics (nearly all of them: 100,000 arrays at 100,000 tools);
// frozen, as nothing may add to a summary's diagnostics
const NO_DIAGNOSTICS = Object.freeze([]) as unknown as EntrySummary['diagnostics'];

/**
 * A copy of `text` that holds only its own characters. V8 makes a substring of 13 or more characters a view of the
 * string it was cut from, so a tool's name read from its definition kept the whole decoded file (a few KB) alive for
 * as long as its summary: a cold scan of 100,000 tools held ~200 MB more this way once it parsed in its own thread.
 */
export function ownString(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** An entry's summary and its line, made in this thread. */
export function summarise(entry: ScanEntry): SummarisedEntry {
  return { summary: summaryOf(entry), line: Buffer.from(asciiJson(entry), 'latin1') };
}

// every character beyond ASCII, as JSON.stringify leaves them
const NON_ASCII = /[\u0080-\uffff]/g;

// a replace's matches are gathered in one array V8 grows outside the heap limit's reach: over a 90 MB text its growth
// was a fatal out-of-memory of the whole process from the parse thread (review Z10-1); a slice at a time, the thread
// that runs out of heap is ended alone (ERR_WORKER_OUT_OF_MEMORY), and the text is the same (escapes are per code unit)
const SLICE = 65_536;

const escaped = (character: string): string => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON with every character beyond ASCII as a `\u` escape: a cache line is ASCII, so no line holds a raw newline. */
export function asciiJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json.length <= SLICE) return json.replace(NON_ASCII, escaped);
  const slices: string[] = [];
  for (let at = 0; at < json.length; at += SLICE) slices.push(json.slice(at, at + SLICE).replace(NON_ASCII, escaped));
  return slices.join('');
}
