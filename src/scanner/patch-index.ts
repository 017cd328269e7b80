import { declaredParams, ParamListsBuilder, toolNameAt, toolsOf, withLazyTools, type ParamLists, type ToolDefinition, type ToolIndex, type ToolSequence } from '../core/index.js';
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
 * 10,000 tools; its tools' aliases are the previous index's (known without making the tools where those were). Undefined for any other change: the index is then assembled again. The patch of an index served from
 * the scan cache (its tools made when read) is made the same way, one tool at a time: a whole read of the previous
 * tools would make and keep every definition (issue #18).
 */
export function patchIndex(previous: ToolIndex, changes: readonly EntryChange[], commit: string, scannedAt: string): ToolIndex | undefined {
  const sequence = toolsOf(previous);
  const swapped = new Map<number, ToolDefinition>();
  for (const { before, after } of changes) {
    if (entryKind(before) !== 'tool' || entryKind(after) !== 'tool' || before.diagnostics.length > 0 || after.diagnostics.length > 0) return undefined;
    const old = (before as { tool: ToolDefinition | null }).tool;
    const next = (after as { tool: ToolDefinition | null }).tool;
    if (!old || !next || old.name !== next.name || old.group !== next.group || !sameList(old.aliases, next.aliases)) return undefined;
    const at = positionOf(sequence, old.name);
    // the index held a copy (some alias was another's) or another folder's tool of that name: not a plain swap
    if (at === undefined || (swapped.get(at) ?? sequence.at(at)) !== old) return undefined;
    swapped.set(at, next);
  }
  const { source, toolsets, skills, policies, errors, warnings, contested } = previous;
  // the names and aliases are the previous index's, and so are its contested names
  const named = contested ? { contested } : {};
  if (Array.isArray(sequence)) {
    const tools = sequence.slice();
    for (const [at, tool] of swapped) tools[at] = tool;
    return { source, commit, tools, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: scannedAt, ...named };
  }
  // each tool made from the first index served lazily, but those swapped in since: a chain of rescans is one step deep
  const from = patchedFrom.get(previous);
  const base = from?.base ?? sequence;
  const all = from ? new Map([...from.swapped, ...swapped]) : swapped;
  const aliasLists = from ? from.aliasLists : sequence.aliasLists;
  const baseParams = from ? from.paramLists : sequence.paramLists;
  const names = Array.from({ length: sequence.length }, (_, position) => toolNameAt(sequence, position)!);
  const index = withLazyTools({ source, commit, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: scannedAt, ...named }, names, (position) => all.get(position) ?? base.at(position)!, {
    aliasLists,
    paramLists: paramListsSwapping(baseParams, all),
    // the positions swapped since the index served from the cache: what a search index's update compares
    ...(sequence.origin ? { origin: { base: sequence.origin.base, lines: sequence.origin.lines, swapped: new Map([...sequence.origin.swapped, ...swapped]) } } : {}),
  });
  patchedFrom.set(index, { base, swapped: all, aliasLists, paramLists: baseParams });
  return index;
}

// what a patch of a lazily served index makes its tools from: that index's tools, and the definitions swapped in
const patchedFrom = new WeakMap<ToolIndex, { base: ToolSequence; swapped: ReadonlyMap<number, ToolDefinition>; aliasLists: ToolSequence['aliasLists']; paramLists: ToolSequence['paramLists'] }>();

// the declared params of the base's tools with those of the definitions swapped in (a changed schema changes what a
// policy's condition keys may name: review Z17, Z17-5), made when a policy asks and held while its union is
function paramListsSwapping(base: ToolSequence['paramLists'], swapped: ReadonlyMap<number, ToolDefinition>): () => ParamLists | undefined {
  let made: WeakRef<ParamLists> | undefined;
  return () => {
    let lists = made?.deref();
    const from = lists === undefined ? base?.() : undefined;
    if (from === undefined) return lists;
    const builder = new ParamListsBuilder(from);
    for (const [at, tool] of swapped) builder.set(at, declaredParams(tool.params_schema));
    lists = builder.lists();
    made = new WeakRef(lists);
    return lists;
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, at) => item === b[at]);
}

// tools are sorted by name
function positionOf(tools: ToolSequence, name: string): number | undefined {
  let low = 0;
  let high = tools.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = toolNameAt(tools, middle)!;
    if (found === name) return middle;
    if (found < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
