import { describe, expect, it } from 'vitest';
import { findTool, toolsOf, withLazyTools, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { buildIndex, parseEntry, type ScanEntry } from '../../src/scanner/build-index.js';
import { patchIndex } from '../../src/scanner/patch-index.js';
import { makeToolYaml } from '../helpers/git.js';

// Issue #18: a rescan of an index served from the scan cache (each tool made when read) swapped the changed definitions
// into a copy of previous.tools, which made and kept every definition. It swaps them in by position instead.

const FOLDERS = ['alpha', 'beta', 'gamma', 'delta'];

function toolEntry(folder: string, intent: string, oid: string): ScanEntry {
  return parseEntry({ path: `tools/${folder}/TOOL.hdlp`, folder, oid, content: Buffer.from(makeToolYaml(folder, { intent, aliases: `[${folder}-alias]` })) });
}

const toolOf = (entry: ScanEntry): ToolDefinition => (entry as { tool: ToolDefinition }).tool;

// the index as a warm scan cache serves it: each tool its entry's very object, made when asked for, kept or not as asked
function servedFromCache(entries: readonly ScanEntry[]): { index: ToolIndex; kept: boolean[] } {
  const built = buildIndex('s', 'c0', entries, 't0');
  const order = built.tools.map((tool) => entries.findIndex((entry) => toolOf(entry) === tool));
  const kept: boolean[] = [];
  const { tools: _tools, ...fields } = built;
  const index = withLazyTools(fields, built.tools.map((tool) => tool.name), (position, keep) => {
    kept.push(keep);
    return toolOf(entries[order[position]!]!);
  });
  return { index, kept };
}

describe('patchIndex over an index whose tools are made when read', () => {
  it('gives the index assembled afresh, making only the changed tools, and stays made when read', () => {
    const before = FOLDERS.map((folder, at) => toolEntry(folder, 'reads things', `v0-${at}`));
    const after = [...before];
    after[1] = toolEntry('beta', 'writes things', 'v1-1');
    after[3] = toolEntry('delta', 'lists things', 'v1-3');
    const { index: previous, kept } = servedFromCache(before);
    const changes = [1, 3].map((at) => ({ before: before[at]!, after: after[at]! }));
    const patched = patchIndex(previous, changes, 'c1', 't1')!;
    expect(patched).toBeDefined();
    // only the two tools swapped out were made (to check that they are the index's own), and neither index was read whole
    expect(kept).toEqual([true, true]);
    expect(Array.isArray(toolsOf(previous))).toBe(false);
    expect(Array.isArray(toolsOf(patched))).toBe(false);
    expect(findTool(patched, 'beta')).toBe(toolOf(after[1]!));
    expect(findTool(patched, 'alpha')).toBe(toolOf(before[0]!));
    // a second rescan patches the patch, from the same tools
    const again = [...after];
    again[0] = toolEntry('alpha', 'writes things', 'v2-0');
    const twice = patchIndex(patched, [{ before: after[0]!, after: again[0]! }], 'c2', 't2')!;
    expect(Array.isArray(toolsOf(twice))).toBe(false);
    expect(twice).toEqual(buildIndex('s', 'c2', again, 't2'));
    expect(patched).toEqual(buildIndex('s', 'c1', after, 't1'));
  });

  it('declines a change to a tool the index holds a copy of, as over a plain index', () => {
    const before = FOLDERS.map((folder, at) => toolEntry(folder, 'reads things', `v0-${at}`));
    const { index: previous } = servedFromCache(before);
    const stranger = toolEntry('beta', 'reads things', 'elsewhere');
    expect(patchIndex(previous, [{ before: stranger, after: toolEntry('beta', 'writes things', 'v1-1') }], 'c1', 't1')).toBeUndefined();
  });
});
