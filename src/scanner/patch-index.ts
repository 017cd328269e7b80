import type { ToolDefinition, ToolIndex } from '../core/index.js';
import { entryKind, type ScanEntry } from './build-index.js';

/** One entry folder whose oid changed between two scans: what it held before and what it holds now. */
export interface EntryChange {
  before: ScanEntry;
  after: ScanEntry;
}

/**
 * The index of a rescan made from the previous one when the only changes are tools' definitions that keep their
 * name, aliases and group and report nothing, in the same set of folders: each new definition takes its old one's
 * place, and the collisions, aliases, toolsets, skills and policies checked are the previous ones, unchanged. That is
 * what assembling the index again would give (every input of those checks is the same), without its ~20 ms at
 * 10,000 tools. Undefined for any other change: the index is then assembled again.
 */
export function patchIndex(previous: ToolIndex, changes: readonly EntryChange[], commit: string, scannedAt: string): ToolIndex | undefined {
  const tools = previous.tools.slice();
  for (const { before, after } of changes) {
    if (entryKind(before) !== 'tool' || entryKind(after) !== 'tool' || before.diagnostics.length > 0 || after.diagnostics.length > 0) return undefined;
    const old = (before as { tool: ToolDefinition | null }).tool;
    const next = (after as { tool: ToolDefinition | null }).tool;
    if (!old || !next || old.name !== next.name || old.group !== next.group || !sameList(old.aliases, next.aliases)) return undefined;
    const at = positionOf(tools, old.name);
    // the index held a copy (some alias was another's) or another folder's tool of that name: not a plain swap
    if (at === undefined || tools[at] !== old) return undefined;
    tools[at] = next;
  }
  const { source, toolsets, skills, policies, errors, warnings } = previous;
  return { source, commit, tools, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: scannedAt };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, at) => item === b[at]);
}

// tools are sorted by name
function positionOf(tools: readonly ToolDefinition[], name: string): number | undefined {
  let low = 0;
  let high = tools.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = tools[middle]!.name;
    if (found === name) return middle;
    if (found < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
