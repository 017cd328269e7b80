import type { Diagnostic } from './diagnostic.js';
import type { PolicyDefinition, SkillDefinition, ToolsetDefinition } from './registry-entries.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ParamLists } from './param-lists.js';

/** Every tool, toolset, skill and policy read from one source at one commit: immutable once built; a rescan builds a new one. */
export interface ToolIndex {
  /** the source as given (credentials removed) */
  source: string;
  /** the commit the index was built from; for a plain folder, `folder:<digest of its tool files>` */
  commit: string;
  /** valid tools, sorted by name */
  tools: ToolDefinition[];
  /** valid toolsets, sorted by name */
  toolsets: ToolsetDefinition[];
  /** valid skills, sorted by name */
  skills: SkillDefinition[];
  /** valid policies, in path order (their approval rules are tried in this order); a broken one is in `errors`, and the gateway then refuses every call */
  policies?: PolicyDefinition[];
  /** problems that kept a definition out of the index */
  errors: Diagnostic[];
  /** problems that did not */
  warnings: Diagnostic[];
  /** ISO time of the scan that produced this index */
  scanned_at: string;
  /** set when the source could not be reached and this is the last good index */
  stale?: { reason: string; since: string };
  /**
   * names one tool answers to (or none: git history could not date the claims) and other tools claim too and were
   * refused: as an alias (`ALIAS_CONFLICT`), or as their name in another letter case (`DUPLICATE_NAME`); absent when none
   */
  contested?: ContestedName[];
}

/**
 * A name other tools claim and were refused (review Z, Z1): an alias they declare that another tool answers to, or a
 * case twin's name (`tools/Deploy/` beside `tools/deploy/`). A policy rule, `sessions.deny` or `principals.*.tools`
 * entry naming it could mean any of them (the twin that serves it may be a newcomer, where history could not say), so a
 * list that restricts covers them all and a list that allows covers none of them (fail closed).
 */
export interface ContestedName {
  /** lower-cased */
  name: string;
  /** the tool that answers to it; absent when none does (git history could not tell which claim is older, so none keeps it) */
  holder?: string;
  /** the tools that declare it as an alias and were refused it */
  refused: string[];
  /** the tools named so in another letter case (or, when no tool answers to it, in any) and refused it (`DUPLICATE_NAME`) */
  twins?: string[];
}

/** Why a list naming a contested name (a tool's, and an alias other tools were refused) is read as it is, and how to mend it. */
export function contestedMessage(list: string, name: string, claim: ContestedName): string {
  const quoted = (tools: readonly string[]): string => tools.map((tool) => `'${tool}'`).join(', ');
  const claims: string[] = [];
  if (claim.refused.length > 0) claims.push(`${quoted(claim.refused)} ${claim.refused.length > 1 ? 'declare' : 'declares'} as an alias it was refused (ALIAS_CONFLICT)`);
  if (claim.twins && claim.twins.length > 0) claims.push(`${quoted(claim.twins)} ${claim.twins.length > 1 ? 'are' : 'is'} named so and refused it (DUPLICATE_NAME)`);
  const holder = claim.holder !== undefined ? `which tool '${claim.holder}' answers to` : 'which no tool answers to (git history cannot tell which claim is older)';
  const mend = claim.twins && claim.twins.length > 0 ? (claim.refused.length > 0 ? 'rename or remove the twin, or remove the alias' : 'rename or remove the twin') : 'name the tool you mean, or remove the alias';
  return `${list} names '${name}', ${holder} and ${claims.join(' and ')}: a rule that denies, asks for approval or gates callers covers them all, and an allow (a rule, a principal's tools) covers none of them; ${mend}`;
}

/** The tool of that exact name, if the index has it. */
export function findTool(index: ToolIndex, name: string): ToolDefinition | undefined {
  const lazy = lazyLookups.get(index);
  if (lazy) return lazy(name);
  const at = positionOf(index.tools, name, (tool) => tool.name);
  return at === undefined ? undefined : index.tools[at];
}

/** How many tools the index has, without making every tool of an index made by `withLazyTools` (counting is no reason to parse 100,000 definitions). */
export function toolCount(index: Pick<ToolIndex, 'tools'>): number {
  return lazyNames.get(index)?.length ?? index.tools.length;
}

/**
 * Each tool of the index in order. An index made by `withLazyTools` makes the tools not yet made without keeping
 * them (a reader of every tool once, `hldp scan --json` at 100,000 tools, then holds one at a time, not all); the
 * tools it already made are the very objects it holds.
 */
export function* eachTool<Index extends Pick<ToolIndex, 'tools'>>(index: Index): Generator<ToolDefinition, void, void> {
  const make = lazyMakers.get(index);
  if (!make) {
    yield* index.tools;
    return;
  }
  for (let position = 0; position < make.count; position++) yield make.peek(position);
}

/**
 * The tools of an index in order, reached one at a time by position: what a reader that needs a few of them by
 * position, or each once, takes instead of `tools` (reading `tools` makes and keeps every tool of an index made by
 * `withLazyTools`). An array of tools is one.
 */
export interface ToolSequence {
  readonly length: number;
  /** the tool at that position */
  at(position: number): ToolDefinition | undefined;
  /** its name, where it is known without making the tool */
  nameAt?(position: number): string | undefined;
  /** the tool at that position, made without being kept where it is made when read (the very one, if something holds it) */
  peek?(position: number): ToolDefinition | undefined;
  /** every tool's aliases in order, where they are known without making the tools */
  aliasLists?(): ReadonlyArray<readonly string[]> | undefined;
  /** every tool's declared params in order, where they are known without making the tools */
  paramLists?(): ParamLists | undefined;
  /** what its tools are made from, where it is an index served from the scan cache or a patch of one (`sameToolsAt`) */
  readonly origin?: ToolOrigin;
}

/**
 * What the tools of an index served from the scan cache are made from: each from one line of one cache file (`base`)
 * as it is written there, or swapped in by a rescan (a definition changed, added or moved since).
 */
export interface ToolOrigin {
  readonly base: object;
  /** by position, the base line the tool is made from as it is; -1 for one made otherwise (swapped in, or its aliases cut where `swapped` has none) */
  readonly lines: Int32Array;
  /** the tools swapped in since the base was read, by position */
  readonly swapped: ReadonlyMap<number, ToolDefinition>;
}

/**
 * For each position of `next`, the position of `previous` that holds the very same tool, or -1, told without making
 * either: when both are made from one cache file, as many of their tools are, each the tool of its line or one swapped
 * in (a search index's update after a rescan made every definition of both to compare them: issue #18). A rescan
 * that adds or removes a tool moves the others: they are found by their line. Undefined when it cannot be told so.
 */
export function sameToolsAt(previous: ToolSequence, next: ToolSequence): ((position: number) => number) | undefined {
  const before = previous.origin;
  const after = next.origin;
  if (!before || !after || before.base !== after.base) return undefined;
  const swappedAt = new Map<ToolDefinition, number>();
  for (const [position, tool] of before.swapped) swappedAt.set(tool, position);
  const swapped = (position: number): number | undefined => {
    const tool = after.swapped.get(position);
    return tool === undefined ? undefined : (swappedAt.get(tool) ?? -1);
  };
  // one stored index patched in place: the same positions, a tool whose aliases were cut the same one too
  if (before.lines === after.lines && previous.length === next.length) return (position) => swapped(position) ?? (before.swapped.has(position) ? -1 : position);
  let last = -1;
  for (const line of before.lines) if (line > last) last = line;
  const atLine = new Int32Array(last + 1).fill(-1);
  before.lines.forEach((line, position) => {
    if (line >= 0 && !before.swapped.has(position)) atLine[line] = position;
  });
  return (position) => {
    const line = after.lines[position] ?? -1;
    return swapped(position) ?? (line >= 0 && line < atLine.length ? atLine[line]! : -1);
  };
}

/** The index's tools as a sequence: of an index made by `withLazyTools`, each made when asked for, none read whole. */
export function toolsOf(index: Pick<ToolIndex, 'tools'>): ToolSequence {
  const make = lazyMakers.get(index);
  const names = lazyNames.get(index);
  if (!make || !names) return index.tools;
  const inside = (position: number): boolean => position >= 0 && position < make.count;
  return {
    length: make.count,
    at: (position) => (inside(position) ? make.at(position) : undefined),
    nameAt: (position) => names[position],
    peek: (position) => (inside(position) ? make.peek(position) : undefined),
    aliasLists: () => make.aliasLists?.(),
    paramLists: () => make.paramLists?.(),
    ...(make.origin ? { origin: make.origin } : {}),
  };
}

/**
 * Each tool's aliases, in order: of an index made by `withLazyTools` that knows them, without making a tool (the
 * alias table at 100,000 tools made every definition once, ~1.6 s of CPU: issue #18); else each tool made once and let go.
 */
export function* eachToolAliases(index: Pick<ToolIndex, 'tools'>): Generator<readonly string[], void, void> {
  const lists = lazyMakers.get(index)?.aliasLists?.();
  if (lists) {
    yield* lists;
    return;
  }
  for (const tool of eachTool(index)) yield tool.aliases;
}

/** Every tool's declared params, where an index made by `withLazyTools` knows them without making a tool; else undefined (read the tools). */
export function knownParamLists(index: Pick<ToolIndex, 'tools'>): ParamLists | undefined {
  return lazyMakers.get(index)?.paramLists?.();
}

/** The tools of an index whose executor is `mcp`: each one's position in the index and the server its `mcp.server` names, in index order. */
export type McpServerList = ReadonlyArray<readonly [at: number, server: string]>;

/**
 * Each tool that runs on an MCP server, by name, with the server it names: of an index made by `withLazyTools`, what
 * it knows without making a tool (the scan cache keeps it), else undefined — nothing is made to find out, as a start
 * from a warm cache makes no definition (review userZ11, U11-23); of any other index, read from its tools.
 */
export function knownMcpServers(index: Pick<ToolIndex, 'tools'>): Array<{ tool: string; server: string }> | undefined {
  const make = lazyMakers.get(index);
  const names = lazyNames.get(index);
  if (!make || !names) return mcpServerList(index.tools).map(([at, server]) => ({ tool: index.tools[at]!.name, server }));
  return make.mcpServers?.()?.map(([at, server]) => ({ tool: names[at]!, server }));
}

/** The MCP servers `tools` run on (`McpServerList`), read from the definitions. */
export function mcpServerList(tools: Iterable<Pick<ToolDefinition, 'executor' | 'mcp'>>): Array<[number, string]> {
  const list: Array<[number, string]> = [];
  let at = 0;
  for (const tool of tools) {
    if (tool.executor === 'mcp' && tool.mcp) list.push([at, tool.mcp.server]);
    at++;
  }
  return list;
}

/** The name of the tool at that position of the sequence (without making it, where its names are known). */
export function toolNameAt(tools: ToolSequence, position: number): string | undefined {
  return tools.nameAt ? tools.nameAt(position) : tools.at(position)?.name;
}

// tools are sorted by name: binary search keeps lookups O(log n) at 10,000 tools
function positionOf<T>(sorted: readonly T[], name: string, nameOf: (item: T) => string): number | undefined {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = nameOf(sorted[middle]!);
    if (found === name) return middle;
    if (found < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

// how findTool reaches one tool of an index made by `withLazyTools` without making all of them; a copy of such an
// index (a spread reads `tools`, making them all) has no entry here and is searched as any other
const lazyLookups = new WeakMap<object, (name: string) => ToolDefinition | undefined>();
// the names of such an index's tools, for counting them
const lazyNames = new WeakMap<object, readonly string[]>();
// how to make one tool of such an index, by position
const lazyMakers = new WeakMap<object, LazyMaker>();

// how to make one tool of such an index, by position, and what is known of its tools' aliases
interface LazyMaker {
  count: number;
  at: (position: number) => ToolDefinition;
  peek: (position: number) => ToolDefinition;
  aliasLists?: (() => ReadonlyArray<readonly string[]> | undefined) | undefined;
  paramLists?: (() => ParamLists | undefined) | undefined;
  mcpServers?: (() => McpServerList | undefined) | undefined;
  origin?: ToolOrigin | undefined;
}

/** What else an index made by `withLazyTools` knows of its tools without making them. */
export interface LazyToolsKnown {
  /** every tool's aliases in order, or undefined when it cannot say (`eachToolAliases`) */
  aliasLists?: () => ReadonlyArray<readonly string[]> | undefined;
  /** every tool's declared params in order, or undefined when it cannot say (`knownParamLists`) */
  paramLists?: () => ParamLists | undefined;
  /** the tools whose executor is `mcp`, with their server, or undefined when it cannot say (`knownMcpServers`) */
  mcpServers?: () => McpServerList | undefined;
  /** what its tools are made from (`sameToolsAt`) */
  origin?: ToolOrigin;
}

/**
 * An index whose tools are made when first read: the whole list when `tools` is read, one tool when `findTool` (or
 * `toolsOf`) asks for it (a call by name from a warm cache need not make 10,000 definitions). `names` are the tools'
 * names in index order; `toolAt(position, true)` makes one. A tool made is not held by the index (issue #18: at
 * 100,000 tools the definitions were ~170 MB of a server's heap), only the last few made and those someone else holds:
 * while anything holds a tool, asking again gives that very object; once none does, a new one, equal to it. Reading
 * `tools` makes and keeps them all, the very objects the lookups gave. `toolAt(position, false)` makes one that is not
 * kept (`eachTool`): what it reads to make it need not be kept either.
 */
export function withLazyTools(fields: Omit<ToolIndex, 'tools'>, names: readonly string[], toolAt: (position: number, keep: boolean) => ToolDefinition, known: LazyToolsKnown = {}): ToolIndex {
  // each tool made, held weakly: the list, a lookup or a request holding it keeps it the same object
  const made: Array<WeakRef<ToolDefinition> | undefined> = new Array(names.length);
  const recent = new RecentlyMade();
  const madeAt = (position: number): ToolDefinition => {
    let tool = made[position]?.deref();
    if (tool === undefined) {
      tool = toolAt(position, true);
      made[position] = new WeakRef(tool);
      recent.add(tool);
    }
    return tool;
  };
  const { source, commit, ...rest } = fields;
  // the fields in the order a built index has them (JSON output and equality in tests see the same object)
  const index = { source, commit } as ToolIndex;
  Object.defineProperty(index, 'tools', {
    enumerable: true,
    configurable: true,
    get(): ToolDefinition[] {
      const tools = names.map((_, position) => madeAt(position));
      Object.defineProperty(index, 'tools', { value: tools, enumerable: true, configurable: true, writable: true });
      lazyLookups.delete(index);
      lazyNames.delete(index);
      lazyMakers.delete(index);
      return tools;
    },
  });
  Object.assign(index, rest);
  lazyNames.set(index, names);
  lazyMakers.set(index, { count: names.length, at: madeAt, peek: (position) => made[position]?.deref() ?? toolAt(position, false), aliasLists: known.aliasLists, paramLists: known.paramLists, mcpServers: known.mcpServers, origin: known.origin });
  lazyLookups.set(index, (name) => {
    const at = positionOf(names, name, (known) => known);
    return at === undefined ? undefined : madeAt(at);
  });
  return index;
}

/**
 * A copy of the index with `fields` set, a field given as `undefined` left out: what `{...index, ...fields}` gives,
 * fields in the same order. A copy of an index made by `withLazyTools` makes its tools as the index does (the same
 * objects), where a spread reads `tools` and so makes and keeps every one (issue #18: a stale index at 100,000 tools).
 */
export function indexWith(index: ToolIndex, fields: { [Field in keyof Omit<ToolIndex, 'tools'>]?: ToolIndex[Field] | undefined }): ToolIndex {
  const make = lazyMakers.get(index);
  const names = lazyNames.get(index);
  const lookup = lazyLookups.get(index);
  if (!make || !names || !lookup) return withoutUndefined({ ...index, ...fields }, fields);
  const copy = {} as ToolIndex;
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(index))) {
    if (key !== 'tools') Object.defineProperty(copy, key, key in fields ? { ...descriptor, value: fields[key as keyof typeof fields] } : descriptor);
    else {
      Object.defineProperty(copy, 'tools', {
        enumerable: true,
        configurable: true,
        get(): ToolDefinition[] {
          // the index's own list: the very objects the index and its lookups gave
          const tools = index.tools;
          Object.defineProperty(copy, 'tools', { value: tools, enumerable: true, configurable: true, writable: true });
          lazyLookups.delete(copy);
          lazyNames.delete(copy);
          lazyMakers.delete(copy);
          return tools;
        },
      });
    }
  }
  for (const key of Object.keys(fields)) if (!(key in copy)) Object.defineProperty(copy, key, { value: fields[key as keyof typeof fields], enumerable: true, configurable: true, writable: true });
  lazyNames.set(copy, names);
  lazyMakers.set(copy, make);
  lazyLookups.set(copy, lookup);
  return withoutUndefined(copy, fields);
}

// the fields given as undefined, left out
function withoutUndefined(index: ToolIndex, fields: object): ToolIndex {
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete index[key as keyof ToolIndex];
  return index;
}

// tools an index made lately, held so that the few a server is asked for again and again (a call by name, the
// candidates of a match) are not made anew each time
const RECENT_TOOLS = 256;

class RecentlyMade {
  private readonly tools: ToolDefinition[] = [];
  private next = 0;

  add(tool: ToolDefinition): void {
    this.tools[this.next] = tool;
    this.next = (this.next + 1) % RECENT_TOOLS;
  }
}

/** Orders tools the way an index holds them (by name, code-point order). */
export function compareToolNames(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
