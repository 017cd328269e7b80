import type { ToolDefinition, ToolIndex } from '../core/index.js';
import type { ScanEntry } from './build-index.js';

/**
 * An index as the disk cache keeps it beside its entries, so that a warm start takes it as built instead of
 * assembling it again (collisions, aliases, sorting, members and policies checked: ~15-40 ms at 10,000 tools).
 * Each tool is the position of its entry, or the position and the aliases it kept when some were another's.
 */
export interface StoredIndex {
  tools: Array<number | [position: number, aliases: string[]]>;
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
  const tools: StoredIndex['tools'] = new Array(index.tools.length);
  for (let at = 0; at < index.tools.length; at++) {
    if (at % STEP === STEP - 1) yield;
    const tool = index.tools[at]!;
    const position = positions.get(tool.source);
    if (position === undefined) throw new Error(`the index's tool '${tool.name}' is not one of the scan's entries`);
    const entry = entries[position] as { tool: ToolDefinition };
    tools[at] = entry.tool === tool ? position : [position, tool.aliases];
  }
  const { toolsets, skills, policies, errors, warnings } = index;
  return { tools, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings };
}

// tools handled between two stops
const STEP = 4000;

/** The index a cache kept, over the entries read with it (their very tool objects, as a fresh build would hold). */
export function restoreIndex(stored: StoredIndex, entries: readonly ScanEntry[], header: Pick<ToolIndex, 'source' | 'commit' | 'scanned_at'>): ToolIndex | undefined {
  const tools: ToolDefinition[] = new Array(stored.tools.length);
  for (let at = 0; at < stored.tools.length; at++) {
    const kept = stored.tools[at]!;
    const entry = entries[typeof kept === 'number' ? kept : kept[0]];
    // a cache that does not fit its own entries is not trusted: the index is built from the entries instead
    if (!entry || !('tool' in entry) || !entry.tool) return undefined;
    tools[at] = typeof kept === 'number' ? entry.tool : { ...entry.tool, aliases: kept[1] };
  }
  const { toolsets, skills, policies, errors, warnings } = stored;
  return { source: header.source, commit: header.commit, tools, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at: header.scanned_at };
}
