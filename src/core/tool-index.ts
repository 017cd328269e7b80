import type { Diagnostic } from './diagnostic.js';
import type { PolicyDefinition, SkillDefinition, ToolsetDefinition } from './registry-entries.js';
import type { ToolDefinition } from './tool-definition.js';

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
}

/** The tool of that exact name, if the index has it. */
export function findTool(index: ToolIndex, name: string): ToolDefinition | undefined {
  // tools are sorted by name: binary search keeps lookups O(log n) at 10,000 tools
  let low = 0;
  let high = index.tools.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const tool = index.tools[middle]!;
    if (tool.name === name) return tool;
    if (tool.name < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** Orders tools the way an index holds them (by name, code-point order). */
export function compareToolNames(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
