import { entryKind, type EntryOf, type ScanEntry, type ToolStub } from './build-index.js';

/** A tool as a summary keeps it: what assembling the index reads, and where its entry is among the scan's. */
export type ToolSummary = ToolStub & { position: number };

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
    // the path is the listing's own string; the names are cut from the file's text, which each would otherwise keep
    stub = { name: ownString(tool.name), aliases: tool.aliases.map(ownString), source: { path: tool.source.path }, position: -1 };
    if (tool.group !== undefined) stub.group = ownString(tool.group);
  }
  // made field by field, in one order: a copy by rest and spread (`{ ...rest }`) gave each summary a hidden class of
  // its own (V8 maps and their descriptors: ~240 bytes a tool, 24 MB at 100,000 tools, measured in a heap snapshot)
  const summary: EntrySummary = { folder: entry.folder, oid: entry.oid, diagnostics: entry.diagnostics.length === 0 ? NO_DIAGNOSTICS : entry.diagnostics, tool: stub };
  if (entry.kind !== undefined) summary.kind = entry.kind;
  if (entry.name_position !== undefined) summary.name_position = entry.name_position;
  return summary;
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

/** JSON with every character beyond ASCII as a `\u` escape: a cache line is ASCII, so no line holds a raw newline. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_ASCII, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
