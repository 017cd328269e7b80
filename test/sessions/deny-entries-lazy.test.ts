import { describe, expect, it } from 'vitest';
import { toolsOf, withLazyTools, type ToolIndex } from '../../src/core/index.js';
import { unmatchedDenyEntries } from '../../src/sessions/visibility.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// the index as a warm scan cache serves it: each tool made from its line when asked for, kept or not as asked
function servedFromCache(): { index: ToolIndex; kept: boolean[] } {
  const tools = [
    makeToolDefinition({ name: 'git-ops', aliases: ['git'], group: 'vcs' }),
    makeToolDefinition({ name: 'shell-exec', aliases: ['bash'] }),
  ];
  const kept: boolean[] = [];
  const index = withLazyTools({ source: 'test', commit: 'c0ffee', toolsets: [], skills: [], policies: [], errors: [], warnings: [] } as unknown as Omit<ToolIndex, 'tools'>, tools.map((tool) => tool.name), (position, keep) => {
    kept.push(keep);
    return structuredClone(tools[position]!);
  });
  return { index, kept };
}

describe('the deny list entries that name nothing, over an index whose tools are made when read', () => {
  it('are found by name, alias and group in any case, without making the tools kept (found in review)', () => {
    const { index, kept } = servedFromCache();
    expect(unmatchedDenyEntries(['BASH', 'Vcs', 'no-such-tool', 'git-ops'], index)).toEqual(['no-such-tool']);
    // reading index.tools would have made every tool kept and turned the index into a list held whole
    expect(kept).toEqual([false, false]);
    expect(Array.isArray(toolsOf(index))).toBe(false);
  });
});
