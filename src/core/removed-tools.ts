import { toolNameAt, toolsOf, type ToolIndex } from './tool-index.js';

/** A tool a rescan took out of the registry: the commit it went at, and the last commit that served it. */
export interface RemovedTool {
  removed_at: string;
  served_at: string;
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
  let at = 0;
  for (let position = 0; position < was.length; position++) {
    const name = toolNameAt(was, position);
    if (name === undefined) continue;
    while (at < nextTools.length && (toolNameAt(nextTools, at) ?? '') < name) at += 1;
    if (at < nextTools.length && toolNameAt(nextTools, at) === name) continue;
    // re-inserted, so that the newest removals are the last forgotten
    removed.delete(name);
    removed.set(name, { removed_at: next.commit, served_at: previous.commit });
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

/** The error and suggestion for a call of a tool a rescan removed: when it went, and that nothing ran. */
export function removedToolWords(name: string, removed: RemovedTool): { error: string; suggestion: string } {
  const short = (commit: string): string => commit.slice(0, 12);
  return {
    error: `tool '${name}' was removed from the repository at commit ${short(removed.removed_at)} (it was served at ${short(removed.served_at)}); nothing ran`,
    // not the advice to write it: its author deleted it
    suggestion: `'${name}' is gone from the registry: find another tool by what it does; write it again only if its removal was a mistake`,
  };
}
