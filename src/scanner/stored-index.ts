import { declaredParams, knownParamLists, mcpServerList, ParamListsBuilder, paramListsOf, paramListsText, parseParamLists, toolsOf, withLazyTools, type EntryKind, type McpServerList, type ParamLists, type ToolDefinition, type ToolIndex } from '../core/index.js';
import type { ClaimHistory } from './sources/claim-history.js';
import { assembleLettingGo, entryKind, type ReadEntry, type ScanEntry } from './build-index.js';
import { asciiJson, type EntrySummary, type ToolSummary } from './entry-summary.js';
import type { CachedEntries } from './cache-file.js';
import { PatchedEntries } from './patched-entries.js';
import { definitionPath } from './sources/source.js';

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
  /**
   * what assembling the index again needs of its tools beyond their names and aliases, as the JSON of `ToolFacts`:
   * read only by a rescan that adds, removes or renames a tool, which so parses only the entries it changes (issue
   * #18). Absent from an older file
   */
  facts?: string;
  /**
   * every tool's declared params, in index order, as the JSON of `ParamLists` (`paramListsText`): what a policy's
   * condition-key check reads for a `*` rule instead of making every tool (review Z17, Z17-5); parsed only then.
   * Absent when the scan could not say them: the check then reads the tools
   */
  params?: string;
  /**
   * the tools whose executor is `mcp` and the server each names, as the JSON of `McpServerList`: what a start checks
   * against the config's `mcp_servers` without making every tool (review userZ11, U11-23). Absent when not known
   */
  servers?: string;
  toolsets: ToolIndex['toolsets'];
  skills: ToolIndex['skills'];
  policies?: ToolIndex['policies'];
  errors: ToolIndex['errors'];
  warnings: ToolIndex['warnings'];
  /** the index's contested names, where it has some (a file of layout 8 or older has none, and is rebuilt) */
  contested?: ToolIndex['contested'];
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
  const params = new ParamListsBuilder();
  for (let at = 0; at < index.tools.length; at++) {
    if (at % STEP === STEP - 1) yield;
    const tool = index.tools[at]!;
    params.add(declaredParams(tool.params_schema));
    const position = positions.get(tool.source);
    if (position === undefined) throw new Error(`the index's tool '${tool.name}' is not one of the scan's entries`);
    tools[at] = position;
    if ((entries[position] as { tool: ToolDefinition }).tool !== tool) aliases.push([at, tool.aliases]);
  }
  const names = index.tools.map((tool) => tool.name);
  const kinds = kindLetters(entries);
  const facts = factsJson(index.tools, tools, entries);
  const servers = asciiJson(mcpServerList(index.tools));
  const { toolsets, skills, policies, errors, warnings, contested } = index;
  return { positions: tools, aliases, names, kinds, toolAliases: aliasListsJson(index.tools), facts, params: paramListsText(params.lists()), servers, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, ...(contested ? { contested } : {}) };
}

/**
 * The stored index of a scan kept only as summaries (a cold scan that wrote its entries as it read them): assembled
 * as `buildIndex` assembles entries, each tool its entry's position (with the aliases it kept, when some were another's);
 * an alias conflict at its alias, its file read again with `read`; a name two claim kept by the tool `previous` served it from.
 */
export async function storeSummaries(source: string, commit: string, summaries: readonly EntrySummary[], scannedAt: string, read?: ReadEntry, previous?: ToolIndex, history?: ClaimHistory): Promise<StoredIndex> {
  const index = await assembleLettingGo(source, commit, summaries, scannedAt, read, previous, history);
  const positions = new Uint32Array(index.tools.length);
  const aliases: StoredIndex['aliases'] = [];
  index.tools.forEach((tool, at) => {
    positions[at] = tool.position;
    if ((summaries[tool.position] as { tool: ToolSummary | null }).tool !== tool) aliases.push([at, tool.aliases]);
  });
  const names = index.tools.map((tool) => tool.name);
  const kinds = kindLetters(summaries);
  const facts = factsJson(index.tools, positions, summaries);
  // each tool's params as its summary says them (a cold scan's parse thread, or the stored index a rescan started from)
  const params = new ParamListsBuilder();
  const known = index.tools.every((tool) => tool.params !== undefined && params.addText(tool.params));
  // each tool's MCP server as its summary says it (none: not an mcp tool; null: a stub of a stored index that kept none)
  const servers = index.tools.some((tool) => tool.server === null) ? undefined : asciiJson(index.tools.flatMap((tool, at) => (typeof tool.server === 'string' ? [[at, tool.server]] : [])));
  const { toolsets, skills, policies, errors, warnings, contested } = index;
  return { positions, aliases, names, kinds, toolAliases: aliasListsJson(index.tools), facts, ...(known ? { params: paramListsText(params.lists()) } : {}), ...(servers !== undefined ? { servers } : {}), toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, ...(contested ? { contested } : {}) };
}

/** What a stored index keeps of its tools for assembling it again (`StoredIndex.facts`), beside their names and aliases. */
export interface ToolFacts {
  /** the tools that have a group: their place in the index and their group */
  groups: Array<[at: number, group: string]>;
  /** the tools whose folder is not their name: their place in the index and their folder */
  folders: Array<[at: number, folder: string]>;
  /** the entries of the index's tools the rest does not summarise (with diagnostics, a path not their folder's), in order: parsed to assemble again (those of no tool of the index are parsed anyway) */
  parse: number[];
}

// `StoredIndex.facts`: a few pairs, nearly none at all in most registries (a tool named as its folder, without a group)
function factsJson(tools: ReadonlyArray<{ name: string; group?: string; source: { path: string } }>, positions: Uint32Array, entries: ReadonlyArray<{ folder: string; diagnostics: readonly unknown[] }>): string {
  const facts: ToolFacts = { groups: [], folders: [], parse: [] };
  // an entry whose tool the index does not hold (broken, or a name taken) is parsed anyway: only the index's tools are said
  tools.forEach((tool, at) => {
    const { folder, diagnostics } = entries[positions[at]!]!;
    if (tool.group !== undefined) facts.groups.push([at, tool.group]);
    if (folder !== tool.name) facts.folders.push([at, folder]);
    if (diagnostics.length > 0 || tool.source.path !== definitionPath(folder)) facts.parse.push(positions[at]!);
  });
  facts.parse.sort((a, b) => a - b);
  return asciiJson(facts);
}

/** The facts a stored index keeps, or undefined when it keeps none or they are not what `factsJson` writes. */
export function parseFacts(stored: StoredIndex): ToolFacts | undefined {
  if (typeof stored.facts !== 'string') return undefined;
  let facts: Partial<ToolFacts>;
  try {
    facts = JSON.parse(stored.facts) as Partial<ToolFacts>;
  } catch {
    return undefined;
  }
  const tools = stored.names.length;
  const pairs = (list: unknown): boolean => Array.isArray(list) && list.every((pair) => Array.isArray(pair) && pair.length === 2 && Number.isSafeInteger(pair[0]) && pair[0] >= 0 && pair[0] < tools && typeof pair[1] === 'string');
  if (typeof facts !== 'object' || facts === null || !pairs(facts.groups) || !pairs(facts.folders) || !Array.isArray(facts.parse)) return undefined;
  if (!facts.parse.every((position) => Number.isSafeInteger(position) && position >= 0 && position < stored.kinds.length)) return undefined;
  return facts as ToolFacts;
}

/** The MCP servers a stored index keeps (`servers`), parsed, or undefined when it keeps none or they are not `McpServerList`'s of its tools. */
export function storedMcpServers(stored: Pick<StoredIndex, 'servers' | 'names'>): McpServerList | undefined {
  if (typeof stored.servers !== 'string') return undefined;
  let list: unknown;
  try {
    list = JSON.parse(stored.servers);
  } catch {
    return undefined;
  }
  const tools = Array.isArray(stored.names) ? stored.names.length : 0;
  const fits = (pair: unknown): boolean => Array.isArray(pair) && pair.length === 2 && Number.isSafeInteger(pair[0]) && pair[0] >= 0 && pair[0] < tools && typeof pair[1] === 'string';
  return Array.isArray(list) && list.every(fits) ? (list as McpServerList) : undefined;
}

/** The tools' aliases a stored index keeps (`toolAliases`), parsed, or undefined when it keeps none or they do not fit. */
export function storedAliasLists(stored: StoredIndex): string[][] | undefined {
  return typeof stored.toolAliases === 'string' ? parseAliasLists(stored.toolAliases, stored.names.length) : undefined;
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
 * The index a cache kept, over the entries read with it (or those entries as rescans since changed, added or moved
 * them): its tools are made when first read (the very tool objects of the entries, as a fresh build would hold), so a
 * call by name parses one entry, not 10,000. Undefined when the stored index does not fit its entries (the index is
 * then built from them).
 */
export function restoreIndex(stored: StoredIndex, read: CachedEntries | PatchedEntries, header: Pick<ToolIndex, 'source' | 'commit' | 'scanned_at'>): ToolIndex | undefined {
  const entries = read instanceof PatchedEntries ? read : new PatchedEntries(read);
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
  const { toolsets, skills, policies, errors, warnings, toolAliases, contested, params } = stored;
  const fields = { source: header.source, commit: header.commit, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: header.scanned_at, ...(Array.isArray(contested) ? { contested } : {}) };
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
  const toolAt = (at: number, keep: boolean): ToolDefinition => {
    const position = positions[at]!;
    const entry = keep ? entries.at(position) : entries.peek(position);
    const tool = entry && 'tool' in entry ? entry.tool : null;
    if (!tool || tool.name !== names[at]) throw entries.damaged(position, `not the tool '${names[at]}' its index names`);
    const aliases = kept.get(at);
    return aliases === undefined ? tool : { ...tool, aliases };
  };
  // each tool's line of the cache file, or the tool swapped in by a rescan (held by the entries): what a search
  // index's update tells unchanged tools by (`sameToolsAt`), without making them
  const lines = new Int32Array(positions.length);
  const swapped = new Map<number, ToolDefinition>();
  for (let at = 0; at < positions.length; at++) {
    const line = kept.has(at) ? -1 : entries.lineAt(positions[at]!);
    lines[at] = line;
    if (line < 0 && !kept.has(at) && entries.changed.has(positions[at]!)) swapped.set(at, toolAt(at, true));
  }
  // parsed when a policy asks, held while the union made of them is (`unionOf`)
  let parsedParams: WeakRef<ParamLists> | undefined;
  const paramLists = (): ParamLists | undefined => {
    let lists = parsedParams?.deref();
    if (lists === undefined) {
      lists = parseParamLists(params, names.length);
      if (lists) parsedParams = new WeakRef(lists);
    }
    return lists;
  };
  const mcpServers = (): McpServerList | undefined => storedMcpServers(stored);
  return withLazyTools(fields, names, toolAt, { aliasLists, paramLists, mcpServers, origin: { base: entries.base, lines, swapped } });
}

const TOOL_LETTER = 't'.charCodeAt(0);

/**
 * The stored index of a patch of the index `stored` is of (the same positions, names and aliases; some definitions
 * swapped in): its tools' params those of the patch, which a definition changed in place may change; none when they
 * cannot be told without making every tool (a stale list would misjudge a policy's condition keys).
 */
export function patchedStored(stored: StoredIndex, index: ToolIndex): StoredIndex {
  const sequence = toolsOf(index);
  const lists = knownParamLists(index) ?? (Array.isArray(sequence) ? paramListsOf(sequence.map((tool) => tool.params_schema)) : undefined);
  const { params: _stale, servers: _staleServers, ...rest } = stored;
  const servers = serversSwapping(stored, sequence);
  return { ...rest, ...(lists ? { params: paramListsText(lists) } : {}), ...(servers !== undefined ? { servers } : {}) };
}

// the MCP servers of a patch: those `stored` kept, each position swapped in since its cache file was read judged by its
// new definition; undefined when neither says (a definition changed may now name another server, or none)
function serversSwapping(stored: StoredIndex, sequence: ReturnType<typeof toolsOf>): string | undefined {
  if (Array.isArray(sequence)) return asciiJson(mcpServerList(sequence));
  const kept = storedMcpServers(stored);
  const swapped = sequence.origin?.swapped;
  if (!kept || !swapped) return undefined;
  const servers = new Map(kept);
  for (const [at, tool] of swapped) {
    servers.delete(at);
    if (tool.executor === 'mcp' && tool.mcp) servers.set(at, tool.mcp.server);
  }
  return asciiJson([...servers].sort((a, b) => a[0] - b[0]));
}
