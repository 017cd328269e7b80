import { withLazyTools, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';

/**
 * The index as a warm scan cache serves it: each tool made from its line when asked for (a fresh copy), kept or not
 * as asked. `kept` lists the names of the tools made to be kept: reading `index.tools` makes every one of them kept.
 */
export function servedFromCache(tools: readonly ToolDefinition[], fields: Partial<Omit<ToolIndex, 'tools'>> = {}): { index: ToolIndex; kept: string[]; made: () => number } {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const kept: string[] = [];
  let made = 0;
  const all = { source: 'test', commit: 'c0ffee', toolsets: [], skills: [], policies: [], errors: [], warnings: [], scanned_at: '2026-12-02T00:00:00.000Z', ...fields };
  const index = withLazyTools(all, sorted.map((tool) => tool.name), (position, keep) => {
    made += 1;
    if (keep) kept.push(sorted[position]!.name);
    return structuredClone(sorted[position]!);
  });
  return { index, kept, made: () => made };
}

/** The same tools as an index built whole. */
export function builtWhole(tools: readonly ToolDefinition[], fields: Partial<Omit<ToolIndex, 'tools'>> = {}): ToolIndex {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const { source = 'test', commit = 'c0ffee', ...rest } = fields;
  return { source, commit, tools: sorted, toolsets: [], skills: [], policies: [], errors: [], warnings: [], scanned_at: '2026-12-02T00:00:00.000Z', ...rest } as ToolIndex;
}
