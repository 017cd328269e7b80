import { declaredTextAt, foldedKey, letGo, parseParamLists, type ToolIndex } from '../core/index.js';
import { entryKind, type ScanEntry } from './build-index.js';
import { summaryOf, type EntrySummary, type ToolSummary } from './entry-summary.js';
import { patchIndex } from './patch-index.js';
import type { PatchedEntries } from './patched-entries.js';
import { readChanged, searchEntries } from './read-changed.js';
import { definitionPath, type EntryDiff, type Snapshot, type ToolEntry } from './sources/source.js';
import { parseFacts, patchedStored, restoreIndex, storedAliasLists, storedMcpServers, storeSummaries, type StoredIndex } from './stored-index.js';
import { isUnread } from './unread-entry.js';
import type { ParseOptions } from './yaml-mapping.js';

/** An index served from the scan cache, as a rescan starts from it: its entries (lines of a cache file, a few changed since), their stored index and commit. */
export interface CachedScanState {
  entries: PatchedEntries;
  stored: StoredIndex;
  commit: string;
  /** the index served, where one is (a patch in place swaps its tools); none at a start onto a newer commit */
  index: ToolIndex | undefined;
}

/** What a rescan of a cached index made: the new index, its entries, their stored index, and whether a file could not be read. */
export interface CachedRescan {
  index: ToolIndex;
  entries: PatchedEntries;
  stored: StoredIndex;
  unread: boolean;
}

/**
 * The rescan of an index served from the scan cache, made from what changed since its commit (git: trees compared
 * from the top): only the entries added or changed are read and made, and a few looked at to find where they go. A
 * definition changed in place that keeps its names, group and clean report swaps into the previous index
 * (`patchIndex`); any other change (a tool added, removed or renamed, an alias or group changed, a definition broken or
 * mended) assembles the index again from the stored index's summary of each unchanged tool, parsing only those whose
 * summary it does not hold (diagnostics, a name now shared): collisions, aliases, toolsets, skills, policies and
 * diagnostics come out as a fresh scan's. Undefined when the source cannot say what changed, or the cache keeps too
 * little: the caller then lists and assembles every entry.
 */
export async function rescanCached(from: CachedScanState, snapshot: Snapshot, source: string, scannedAt: string, options: ParseOptions): Promise<CachedRescan | undefined> {
  const diff = snapshot.diffEntries ? await snapshot.diffEntries(from.commit) : undefined;
  if (!diff) return undefined;
  const { entries } = from;
  const moves = movesOf(entries, diff);
  if (!moves) return undefined;
  const { from: previousAt, read } = moves;
  const results: Array<ScanEntry | Promise<ScanEntry>> = new Array(previousAt.length);
  await readChanged(snapshot, read.positions, (at) => read.entries[at]!, results, options);
  const changes = new Map(read.positions.map((position) => [position, results[position] as ScanEntry]));
  const unread = [...changes.values()].some(isUnread);
  const header = { source, commit: snapshot.commit, scanned_at: scannedAt };
  if (previousAt.length === entries.length && diff.added.length === 0 && diff.removed.length === 0 && from.index) {
    // every position kept: a definition changed in place may swap into the index served
    const swapped = patchIndex(from.index, read.positions.map((position) => ({ before: entries.at(position)!, after: changes.get(position)! })), snapshot.commit, scannedAt);
    if (swapped) return { index: swapped, entries: entries.with(changes), stored: patchedStored(from.stored, swapped), unread };
  }
  const next = entries.moved(previousAt, changes);
  const summaries = await summariesOf(from, next, previousAt, changes);
  if (!summaries) return undefined;
  // a name a newcomer claims too stays with the tool that served it (`from.index`, at a start the scan the cache held)
  const stored = await storeSummaries(source, snapshot.commit, summaries, scannedAt, (entry) => snapshot.read(entry), from.index, snapshot.history);
  const index = restoreIndex(stored, next, header);
  return index ? { index, entries: next, stored, unread } : undefined;
}

/** Where each entry after the change comes from: the position of the same unchanged entry before it, or -1; and which to read, by their position after it. */
interface Moves {
  from: Int32Array;
  read: { positions: number[]; entries: ToolEntry[] };
}

// the entries after the diff, each a position before it or one to read; a few entries are looked at to find where the
// changed, removed and added ones are (a binary search each); undefined when one is not where the diff says
function movesOf(entries: PatchedEntries, diff: EntryDiff): Moves | undefined {
  const peek = (position: number): ScanEntry => entries.peek(position)!;
  const find = (entry: ToolEntry): number | undefined => {
    const { position, found } = searchEntries(entries.length, peek, entry);
    return found ? position : undefined;
  };
  const changed = new Map<number, ToolEntry>();
  for (const entry of diff.changed) {
    const position = find(entry);
    if (position === undefined) return undefined;
    changed.set(position, entry);
  }
  const removed = new Set<number>();
  for (const entry of diff.removed) {
    const position = find(entry);
    if (position === undefined) return undefined;
    removed.add(position);
  }
  // each added entry before the entry now at its insertion point, in the listing's order
  const added: Array<{ before: number; entry: ToolEntry }> = [];
  for (const entry of diff.added) {
    const { position, found } = searchEntries(entries.length, peek, entry);
    if (found) return undefined;
    added.push({ before: position, entry });
  }
  added.sort((a, b) => a.before - b.before);
  const from = new Int32Array(entries.length - removed.size + added.length);
  const read: Moves['read'] = { positions: [], entries: [] };
  let at = 0;
  let next = 0;
  for (let position = 0; position <= entries.length; position++) {
    for (; next < added.length && added[next]!.before === position; next++) {
      from[at] = -1;
      read.positions.push(at);
      read.entries.push(added[next]!.entry);
      at++;
    }
    if (position === entries.length || removed.has(position)) continue;
    from[at] = position;
    const entry = changed.get(position);
    if (entry) {
      read.positions.push(at);
      read.entries.push(entry);
    }
    at++;
  }
  return { from, read };
}

// entries summarised between two turns of the event loop
const STEP = 4000;

/**
 * The summary of each entry after the change, as a cold scan keeps it: an entry read now, or one unchanged whose
 * summary the stored index holds (its name, aliases, group and folder), or else one parsed from its line (a toolset,
 * skill or policy; a tool with diagnostics, left out of the index, with aliases cut, or whose name another now shares).
 * Undefined when the stored index keeps too little for this (a file of an older layout).
 */
async function summariesOf(from: CachedScanState, next: PatchedEntries, previousAt: Int32Array, changes: ReadonlyMap<number, ScanEntry>): Promise<EntrySummary[] | undefined> {
  const { stored } = from;
  const facts = parseFacts(stored);
  const aliasLists = storedAliasLists(stored);
  if (!facts || !aliasLists) return undefined;
  // an unchanged tool's params as the stored index keeps them (none kept: the new stored index keeps none either)
  const params = parseParamLists(stored.params, stored.names.length);
  // an unchanged tool's MCP server as the stored index keeps it (none kept: not known, and the new one keeps none)
  const kept = storedMcpServers(stored);
  const servers = kept && new Map(kept);
  const toolAt = new Int32Array(from.entries.length).fill(-1);
  stored.positions.forEach((position, at) => {
    toolAt[position] = at;
  });
  const cut = new Set(stored.aliases.map(([at]) => at));
  const groups = new Map(facts.groups);
  const folders = new Map(facts.folders);
  const parse = new Set(facts.parse);
  const summaries: EntrySummary[] = new Array(next.length);
  // the positions summarised from the stored index alone, which a name shared now sends to their lines
  const stubs: number[] = [];
  const parsed = (position: number): EntrySummary => summarised(changes.get(position) ?? next.peek(position)!, position);
  for (let position = 0; position < next.length; position++) {
    if (position % STEP === STEP - 1) await letGo();
    const previous = previousAt[position]!;
    const at = previous < 0 || changes.has(position) ? -1 : toolAt[previous]!;
    if (at < 0 || cut.has(at) || parse.has(previous)) {
      summaries[position] = parsed(position);
      continue;
    }
    const name = stored.names[at]!;
    const folder = folders.get(at) ?? name;
    const tool: ToolSummary = { name, aliases: aliasLists[at]!, source: { path: definitionPath(folder) }, position, params: params && declaredTextAt(params, at) };
    const group = groups.get(at);
    if (group !== undefined) tool.group = group;
    const server = servers ? servers.get(at) : null;
    if (server !== undefined) tool.server = server;
    summaries[position] = { folder, oid: '', diagnostics: [], tool };
    stubs.push(position);
  }
  // a name held by two tools: the one kept out is reported where its file writes the name, which only its line says
  const names = new Map<string, number>();
  for (const summary of summaries) {
    const name = 'tool' in summary && summary.tool ? summary.tool.name.toLowerCase() : undefined;
    if (name !== undefined) names.set(name, (names.get(name) ?? 0) + 1);
  }
  // an alias of an unchanged tool that a changed or added one now names too: its conflict is reported at the alias, which
  // only its file says, read with its entry's oid, which only its line says (a stub's is not kept)
  const fresh = new Set<string>();
  const isStub = new Uint8Array(summaries.length);
  for (const position of stubs) isStub[position] = 1;
  summaries.forEach((summary, position) => {
    const tool = isStub[position] === 0 && 'tool' in summary ? summary.tool : null;
    if (!tool) return;
    fresh.add(tool.name.toLowerCase());
    for (const alias of tool.aliases) fresh.add(foldedKey(alias));
  });
  for (const position of stubs) {
    const { tool } = summaries[position] as { tool: ToolSummary };
    if (names.get(tool.name.toLowerCase())! > 1 || tool.aliases.some((alias) => fresh.has(foldedKey(alias)))) summaries[position] = parsed(position);
  }
  return summaries;
}

// an entry's summary at that position
function summarised(entry: ScanEntry, position: number): EntrySummary {
  const summary = summaryOf(entry);
  if (entryKind(summary) === 'tool' && 'tool' in summary && summary.tool) (summary.tool as ToolSummary).position = position;
  return summary;
}
