import { eachToolAliases, entryPath, foldedKey, toolNameAt, toolsOf, type Diagnostic, type EntryKind, type ToolIndex } from '../core/index.js';

/**
 * What the index served before this one says of who held a name or alias (lower-cased): the definition path of its
 * tool. A push that adds `tools/Hello/` (or `tools/a-hello/` saying `name: hello`) must not take `hello` from the
 * working tool that served it: path order alone gave the name to whichever sorted first.
 */
export interface Established {
  name(key: string): string | undefined;
  alias(key: string): string | undefined;
  /** the definition path of the toolset served by that lower-cased name */
  toolset(key: string): string | undefined;
  /** where git history settled a key the previous index did not (or says why it could not): see `settledByHistory` */
  note?(kind: 'name' | 'alias' | 'toolset', key: string): HistoryNote | undefined;
}

/**
 * Why git history gave a key to its holder (the younger claims and the commits they appeared in), or why it could not
 * tell the claims apart (the older rules decide then). `closed`: a claim came in through a merge, so its age is unknown,
 * and the older rules (folder, path order) would hand the name to whoever picks the casing or the merge's shape: no
 * claim keeps the key (review Z2, Z2-2).
 */
export type HistoryNote = { decided: string } | { undecided: string; closed?: true };

/** Whether a note says no claim keeps its key. */
export const closedNote = (note: HistoryNote | undefined): note is { undecided: string; closed: true } => note !== undefined && 'undecided' in note && note.closed === true;

const NONE: Established = { name: () => undefined, alias: () => undefined, toolset: () => undefined };

/**
 * The names and aliases `previous` served, looked up only at a collision (most scans have none): its tables are made
 * on the first one, from its names and alias lists, and a tool is made only to read its path.
 */
export function establishedIn(previous: ToolIndex | undefined): Established {
  if (previous === undefined) return NONE;
  const tools = toolsOf(previous);
  let names: Map<string, number> | undefined;
  let aliases: Map<string, number> | undefined;
  const pathAt = (at: number | undefined): string | undefined => {
    if (at === undefined) return undefined;
    try {
      return (tools.peek?.(at) ?? tools.at(at))?.source.path;
    } catch {
      // a cache file that no longer fits its index: nothing is known, path order decides as in a fresh scan
      return undefined;
    }
  };
  return {
    name(key) {
      if (names === undefined) {
        names = new Map();
        for (let at = 0; at < tools.length; at++) names.set(toolNameAt(tools, at)!.toLowerCase(), at);
      }
      return pathAt(names.get(key));
    },
    alias(key) {
      if (aliases === undefined) {
        aliases = new Map();
        let at = 0;
        for (const list of eachToolAliases(previous)) {
          for (const alias of list) if (!aliases.has(foldedKey(alias))) aliases.set(foldedKey(alias), at);
          at++;
        }
      }
      return pathAt(aliases.get(key));
    },
    toolset(key) {
      // toolsets are few (tens): a search, no table
      return previous.toolsets.find((toolset) => toolset.name.toLowerCase() === key)?.source.path;
    },
  };
}

/** One definition that claims a name: its folder and its tool's name and path. */
export interface Claim {
  folder: string;
  tool: { name: string; source: { path: string } };
}

// why a claim is kept, best first: it held the name before; its folder is its name; neither (path order decides). A
// tool whose name is not its folder is refused today (NAME_MISMATCH), so twins the scan serves are case twins
// (tools/Hello, tools/hello): the folder rule only keeps the choice right should that check ever be relaxed
const REASONS = ['it served that name at the previous commit', 'its folder is its name', 'it is the first by path order'] as const;

/** Who served a lower-cased name before (its definition's path): `established.name` for tools, `.toolset` for toolsets. */
export type HeldBy = (key: string) => string | undefined;

/** What git history says of a lower-cased name, where the previous index did not settle it: `established.note`. */
export type NoteOf = (key: string) => HistoryNote | undefined;

function rank(claim: Claim, heldBy: HeldBy): number {
  if (heldBy(claim.tool.name.toLowerCase()) === claim.tool.source.path) return 0;
  return claim.folder === claim.tool.name ? 1 : 2;
}

/**
 * Of two definitions claiming one name (compared case-insensitively), the one served: the one that served it at the
 * previous commit (or, with no previous index that says, held it first in git history), else one whose folder is its
 * name, else the first by path (code point order), so that a fresh scan's choice does not depend on the order entries
 * were read in; and why, for the other's DUPLICATE_NAME (`noteOf` says which of the first rule's two sources decided).
 */
export function preferredClaim<C extends Claim>(a: C, b: C, heldBy: HeldBy, noteOf?: NoteOf): { kept: C; other: C; why: string } {
  const rankA = rank(a, heldBy);
  const rankB = rank(b, heldBy);
  const aFirst = rankA < rankB || (rankA === rankB && a.tool.source.path < b.tool.source.path);
  const [kept, other, keptRank, otherRank] = aFirst ? [a, b, rankA, rankB] : [b, a, rankB, rankA];
  const reason = keptRank < otherRank ? keptRank : 2;
  const note = noteOf?.(kept.tool.name.toLowerCase());
  if (note === undefined) return { kept, other, why: REASONS[reason]! };
  if (reason === 0) return { kept, other, why: 'decided' in note ? `it held that name first in git history (${note.decided})` : REASONS[0] };
  // history named none of them: the rule after it decided, and the note says why history could not
  return { kept, other, why: 'undecided' in note ? `${REASONS[reason]!} (${note.undecided})` : REASONS[reason]! };
}

/**
 * Of two tools declaring one alias, the one that keeps it: the one that held it at the previous commit, else the first
 * by path (a tool named so keeps it before either, unless one of them served it at the previous commit: see
 * build-index's aliasHolders).
 */
export function preferredAliasHolder<T extends { source: { path: string } }>(key: string, a: T, b: T, established: Established): T {
  const holder = established.alias(key);
  if (holder === a.source.path) return a;
  if (holder === b.source.path) return b;
  return a.source.path <= b.source.path ? a : b;
}

/** An entry as the case-twin check sees it: its kind, folder, and the file it was read from where it says. */
export interface FolderOf {
  kind?: EntryKind;
  folder: string;
  diagnostics: readonly Diagnostic[];
}

/**
 * Folders of one kind differing only by case (`tools/Hello/`, `tools/hello/`): a checkout on a case-insensitive file
 * system (macOS, Windows) holds one of them only, so an author there edits the other without knowing. A warning at
 * each twin's file, naming the other. `fileOf` says where an entry was read from.
 */
export function caseTwinWarnings<E extends FolderOf>(entries: readonly E[], fileOf: (entry: E) => string): Diagnostic[] {
  // twins differ in case, so one of each pair has a letter toLowerCase changes: most registries have none, and no table is made
  if (!entries.some((entry) => entry.folder !== entry.folder.toLowerCase())) return [];
  const groups = new Map<string, E[]>();
  for (const entry of entries) {
    const key = `${entry.kind ?? 'tool'}/${entry.folder.toLowerCase()}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const warnings: Diagnostic[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (const entry of group) {
      const others = group.filter((other) => other !== entry).map((other) => entryPath(other.kind ?? 'tool', other.folder));
      warnings.push({
        file: fileOf(entry), line: 1, column: 1, severity: 'warning', code: 'CASE_TWIN',
        message: `${entryPath(entry.kind ?? 'tool', entry.folder)} differs from ${others.join(', ')} only by case: a checkout on macOS or Windows holds one of them only (the other's edits land in it unseen); rename one`,
      });
    }
  }
  return warnings;
}
