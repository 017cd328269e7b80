import { withLazyTools, type EntryKind, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { assembleLettingGo, entryKind, type ScanEntry } from './build-index.js';
import { asciiJson, type EntrySummary, type ToolSummary } from './entry-summary.js';
import type { CachedEntries } from './cache-file.js';

/**
 * An index as the disk cache keeps it beside its entries, so that a warm start takes it as built instead of
 * assembling it again (collisions, aliases, sorting, members and policies checked: ~15-40 ms at 10,000 tools).
 * Each tool is the position of its entry, with the aliases it kept when some were another's; with the tools' names
 * and the entries' kinds, a tool can be found by name and its entry parsed alone. The positions are a typed array,
 * read from the file as bytes: a warm start at 100,000 tools parses no JSON array of them (issue #18).
 */
export interface StoredIndex {
  /** each tool's entry position, in index order */
  positions: Uint32Array;
  /** the tools that kept fewer aliases than their entry names (some were another's): their place in the index and those aliases */
  aliases: Array<[at: number, aliases: string[]]>;
  /** each tool's name, in index order */
  names: string[];
  /** one letter an entry: `t` a tool with a definition, `n` a tool without, `s` a toolset, `k` a skill, `p` a policy */
  kinds: string;
  /**
   * each tool's aliases (those it kept), in index order, as the JSON of an array of arrays: parsed only when the alias
   * table is made (the first unknown name), which then makes no definition (issue #18). Absent from an older file
   */
  toolAliases?: string;
  toolsets: ToolIndex['toolsets'];
  skills: ToolIndex['skills'];
  policies?: ToolIndex['policies'];
  errors: ToolIndex['errors'];
  warnings: ToolIndex['warnings'];
}

/** What of `index` the cache keeps: its tools as positions among `entries`, the rest as it is; stops every few thousand tools. */
export function* storeIndexSteps(index: ToolIndex, entries: readonly ScanEntry[]): Generator<void, StoredIndex, void> {
  // an index keeps each entry's very tool, or a copy with fewer aliases that shares its source
  const positions = new Map<ToolDefinition['source'], number>();
  for (let position = 0; position < entries.length; position++) {
    if (position % STEP === STEP - 1) yield;
    const entry = entries[position]!;
    if ('tool' in entry && entry.tool) positions.set(entry.tool.source, position);
  }
  const tools = new Uint32Array(index.tools.length);
  const aliases: StoredIndex['aliases'] = [];
  for (let at = 0; at < index.tools.length; at++) {
    if (at % STEP === STEP - 1) yield;
    const tool = index.tools[at]!;
    const position = positions.get(tool.source);
    if (position === undefined) throw new Error(`the index's tool '${tool.name}' is not one of the scan's entries`);
    tools[at] = position;
    if ((entries[position] as { tool: ToolDefinition }).tool !== tool) aliases.push([at, tool.aliases]);
  }
  const names = index.tools.map((tool) => tool.name);
  const kinds = kindLetters(entries);
  const { toolsets, skills, policies, errors, warnings } = index;
  return { positions: tools, aliases, names, kinds, toolAliases: aliasListsJson(index.tools), toolsets, skills, ...(policies ? { policies } : {}), errors, warnings };
}

/**
 * The stored index of a scan kept only as summaries (a cold scan that wrote its entries as it read them): assembled
 * as `buildIndex` assembles entries, each tool its entry's position (with the aliases it kept, when some were another's).
 */
export async function storeSummaries(source: string, commit: string, summaries: readonly EntrySummary[], scannedAt: string): Promise<StoredIndex> {
  const index = await assembleLettingGo(source, commit, summaries, scannedAt);
  const positions = new Uint32Array(index.tools.length);
  const aliases: StoredIndex['aliases'] = [];
  index.tools.forEach((tool, at) => {
    positions[at] = tool.position;
    if ((summaries[tool.position] as { tool: ToolSummary | null }).tool !== tool) aliases.push([at, tool.aliases]);
  });
  const names = index.tools.map((tool) => tool.name);
  const kinds = kindLetters(summaries);
  const { toolsets, skills, policies, errors, warnings } = index;
  return { positions, aliases, names, kinds, toolAliases: aliasListsJson(index.tools), toolsets, skills, ...(policies ? { policies } : {}), errors, warnings };
}

// `StoredIndex.toolAliases`: one string, not 100,000 arrays (a warm start reads it as it reads the tail's other fields),
// ASCII so that it is held one byte a character: with the raw characters of a Chinese alias each tool's took two (8 MB
// at 100,000 tools, where 4.5 MB now)
function aliasListsJson(tools: ReadonlyArray<{ aliases: readonly string[] }>): string {
  return asciiJson(tools.map((tool) => tool.aliases));
}

/** The tools' aliases a stored index keeps, or undefined when it keeps none or they are not one list of strings a tool. */
function parseAliasLists(text: string, tools: number): string[][] | undefined {
  let lists: unknown;
  try {
    lists = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(lists) || lists.length !== tools) return undefined;
  for (const list of lists) if (!Array.isArray(list) || !list.every((alias) => typeof alias === 'string')) return undefined;
  return lists as string[][];
}

const KIND_LETTERS = { tool: 't', toolset: 's', skill: 'k', policy: 'p' } as const;

// one letter an entry (`StoredIndex.kinds`), written into bytes: appended to a string one at a time, each letter was a
// concatenation of its own until the string was flattened (100,000 of 32 bytes at 100,000 tools)
function kindLetters(entries: ReadonlyArray<{ kind?: EntryKind; tool?: unknown }>): string {
  const letters = Buffer.allocUnsafe(entries.length);
  entries.forEach((entry, position) => {
    letters[position] = ('tool' in entry ? (entry.tool ? 't' : 'n') : KIND_LETTERS[entryKind(entry)]).charCodeAt(0);
  });
  return letters.toString('latin1');
}

// tools handled between two stops
const STEP = 4000;

/**
 * The index a cache kept, over the entries read with it: its tools are made when first read (the very tool objects
 * of the entries, as a fresh build would hold), so a call by name parses one entry, not 10,000. Undefined when the
 * stored index does not fit its entries (the index is then built from them).
 */
export function restoreIndex(stored: StoredIndex, entries: CachedEntries, header: Pick<ToolIndex, 'source' | 'commit' | 'scanned_at'>): ToolIndex | undefined {
  const { positions, names, kinds } = stored;
  if (!(positions instanceof Uint32Array) || !Array.isArray(names) || typeof kinds !== 'string' || names.length !== positions.length || kinds.length !== entries.length) return undefined;
  // a cache that does not fit its own entries is not trusted (an index loop over a typed array: ~2 ms at 100,000
  // tools at start, where iterating an array of numbers and pairs took ~11 ms)
  for (let at = 0; at < positions.length; at++) if (kinds.charCodeAt(positions[at]!) !== TOOL_LETTER) return undefined;
  const kept = new Map<number, string[]>();
  for (const pair of stored.aliases) {
    if (!Array.isArray(pair) || !Number.isSafeInteger(pair[0]) || pair[0] < 0 || pair[0] >= positions.length || !Array.isArray(pair[1])) return undefined;
    kept.set(pair[0], pair[1]);
  }
  const { toolsets, skills, policies, errors, warnings, toolAliases } = stored;
  const fields = { source: header.source, commit: header.commit, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: header.scanned_at };
  // parsed when first asked for, held while the caller holds them (the alias table keeps the strings, not the lists)
  let parsed: WeakRef<string[][]> | undefined;
  const aliasLists = (): string[][] | undefined => {
    let lists = parsed?.deref();
    if (lists === undefined && typeof toolAliases === 'string') {
      lists = parseAliasLists(toolAliases, names.length);
      if (lists) parsed = new WeakRef(lists);
    }
    return lists;
  };
  return withLazyTools(fields, names, (at, keep) => {
    const position = positions[at]!;
    const entry = keep ? entries.at(position) : entries.peek(position);
    const tool = entry && 'tool' in entry ? entry.tool : null;
    if (!tool || tool.name !== names[at]) throw entries.damaged(position, `not the tool '${names[at]}' its index names`);
    const aliases = kept.get(at);
    return aliases === undefined ? tool : { ...tool, aliases };
  }, { aliasLists, origin: { base: {}, swapped: new Map() } });
}

const TOOL_LETTER = 't'.charCodeAt(0);
