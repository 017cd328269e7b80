import { eachToolAliases, toolNameAt, toolsOf, type ToolIndex } from './tool-index.js';

/** A tool a rescan took out of the registry: the commit it went at, and the last commit that served it. */
export interface RemovedTool {
  removed_at: string;
  served_at: string;
  /** the aliases it answered to where it was served: a call of one is told of the tool, not to write it (review userZ5, F12); never sent */
  aliases?: readonly string[];
}

/** The tools recent rescans removed, by name: oldest first, at most `MOST_REMOVED`. */
export type RemovedTools = ReadonlyMap<string, RemovedTool>;

// a removal is told for this many names at most: the oldest is forgotten first, and is then only unknown
export const MOST_REMOVED = 256;

/**
 * The tools removed as of `next`: those `previous` served that `next` does not, added to those removed before and
 * still not served. An agent calling a tool that just went was told to write it anew, and re-created what its author
 * had deleted (review userZ, Z3). Both indexes hold their tools sorted by name, so one walk over the names finds them,
 * making no definition.
 */
export function removedTools(before: RemovedTools | undefined, previous: ToolIndex, next: ToolIndex): RemovedTools {
  const removed = new Map<string, RemovedTool>();
  const nextTools = toolsOf(next);
  const served = (name: string): boolean => {
    const at = nameIndex(nextTools, name);
    return at !== undefined;
  };
  for (const [name, entry] of before ?? []) if (!served(name)) removed.set(name, entry);
  const was = toolsOf(previous);
  const gone = new Map<number, string>();
  let at = 0;
  for (let position = 0; position < was.length; position++) {
    const name = toolNameAt(was, position);
    if (name === undefined) continue;
    while (at < nextTools.length && (toolNameAt(nextTools, at) ?? '') < name) at += 1;
    if (at < nextTools.length && toolNameAt(nextTools, at) === name) continue;
    // re-inserted, so that the newest removals are the last forgotten
    removed.delete(name);
    removed.set(name, { removed_at: next.commit, served_at: previous.commit });
    gone.set(position, name);
  }
  // the aliases of the tools that just went (or broke), read only when some did: agents call tools by alias too
  if (gone.size > 0) {
    let position = -1;
    for (const aliases of eachToolAliases(previous)) {
      const name = gone.get(++position);
      if (name !== undefined && aliases.length > 0) removed.set(name, { ...removed.get(name)!, aliases: [...aliases] });
    }
  }
  for (const name of removed.keys()) {
    if (removed.size <= MOST_REMOVED) break;
    removed.delete(name);
  }
  return removed;
}

// binary search over names in code-point order, as an index sorts them
function nameIndex(tools: ReturnType<typeof toolsOf>, name: string): number | undefined {
  let low = 0;
  let high = tools.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = toolNameAt(tools, middle) ?? '';
    if (found === name) return middle;
    if (found < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/**
 * The removed (or now broken) tool that answered to `alias` where it was served, newest removal first: an alias of a
 * tool that went was told to write tools/<alias>/TOOL.hdlp, a duplicate of the tool (review userZ5, F12).
 */
export function removedAlias(removed: RemovedTools | undefined, alias: string): { tool: string; entry: RemovedTool } | undefined {
  if (!removed) return undefined;
  const key = aliasKey(alias);
  let found: { tool: string; entry: RemovedTool } | undefined;
  for (const [tool, entry] of removed) if (entry.aliases?.some((each) => aliasKey(each) === key)) found = { tool, entry };
  return found;
}

/** An alias as names are compared: NFKC, trimmed, lower case, runs of white space as one space. */
export function aliasKey(alias: string): string {
  return alias.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
}

/**
 * A name or alias as a call's name is resolved once neither matched as written, and as the scan compares claims on a
 * name: the alias key with ё as е (review userZ10, U10-10). A tool's name (ASCII, no space) folds to its lower case.
 * The scan's alias-conflict check compared aliases lower-cased only, so 'подсчёт слов' of one tool and 'подсчет слов'
 * of another were both served, and a call of either spelling folded found a different tool than the other's author meant.
 */
export function foldedKey(name: string): string {
  return aliasKey(name).replace(/ё/g, 'е');
}

/** What of a removed tool a caller is sent: when it went, and the last commit that served it. */
export function removedWhen(removed: RemovedTool): { removed_at: string; served_at: string } {
  return { removed_at: removed.removed_at, served_at: removed.served_at };
}

/** The error and suggestion for a call of a tool a rescan removed (by `aliasOf`'s alias `name`): when it went, and that nothing ran. */
export function removedToolWords(name: string, removed: RemovedTool, aliasOf?: string): { error: string; suggestion: string } {
  const short = (commit: string): string => commit.slice(0, 12);
  const what = aliasOf === undefined ? `tool '${name}'` : `'${name}', an alias of tool '${aliasOf}',`;
  return {
    error: `${what} was removed from the repository at commit ${short(removed.removed_at)} (it was served at ${short(removed.served_at)}); nothing ran`,
    // not the advice to write it: its author deleted it
    suggestion: `'${name}' is gone from the registry${aliasOf === undefined ? '' : ` with '${aliasOf}'`}: find another tool by what it does; write it again only if its removal was a mistake`,
  };
}
