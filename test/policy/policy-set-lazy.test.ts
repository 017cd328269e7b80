import { describe, expect, it } from 'vitest';
import { findTool, toolsOf, withLazyTools, type PolicyDefinition, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { accessRights, PolicySet, Principals } from '../../src/policy/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// Issue #18: an index served from the scan cache makes each tool when read; reading index.tools makes and keeps every
// one. The policies of such an index are compiled from its names, and its aliases and groups read one tool at a time.

const TOOLS = [
  makeToolDefinition({ name: 'git-ops', aliases: ['git'], group: 'vcs' }),
  makeToolDefinition({ name: 'hg-ops', group: 'vcs' }),
  makeToolDefinition({ name: 'shell-exec', aliases: ['bash'] }),
];

const POLICY: PolicyDefinition = {
  name: 'ops',
  access: [
    { tools: ['*'], roles: ['agent', 'trusted'], at: { line: 2, column: 3 } },
    { tools: ['BASH'], roles: ['trusted'], reason: 'shells are for trusted agents', at: { line: 3, column: 3 } },
  ],
  approval: [
    { tools: ['vcs'], decision: 'approve', at: { line: 5, column: 3 } },
    { tools: ['*'], decision: 'allow', at: { line: 6, column: 3 } },
  ],
  author: 't',
  why: 't',
  source: { path: 'policies/ops.hdlp', oid: 'p' },
};

const FIELDS = { source: 'test', commit: 'c1', toolsets: [], skills: [], policies: [POLICY], errors: [], warnings: [], scanned_at: '' };

// the index as a warm scan cache serves it: each tool made from its line when asked for, kept or not as asked
function servedFromCache(): { index: ToolIndex; kept: boolean[] } {
  const kept: boolean[] = [];
  const index = withLazyTools(FIELDS, TOOLS.map((tool) => tool.name), (position, keep) => {
    kept.push(keep);
    return structuredClone(TOOLS[position]!);
  });
  return { index, kept };
}

const principals = new Principals([
  { name: 'bot', roles: ['agent'], tokenSha256: '0'.repeat(64), tools: ['*'] },
  { name: 'lead', roles: ['agent', 'trusted'], tokenSha256: '1'.repeat(64), tools: ['vcs'] },
]);

// what the policies say of each tool, for each principal
function decisions(index: ToolIndex, tools: readonly ToolDefinition[]) {
  const layer = accessRights(principals);
  const set = PolicySet.of(index);
  return tools.map((tool) => ({
    gates: set.gatesFor(tool).map((gate) => gate.where),
    rules: set.rulesFor(tool).map((rule) => rule.ref.where),
    refused: ['bot', 'lead'].map((principal) => layer.refuse(tool, { principal }, index)),
    reserved: ['bot', 'lead'].map((principal) => layer.reserve(tool, { principal }, index)),
  }));
}

describe('the policy set of an index whose tools are made when read', () => {
  it('covers every tool, alias and group as over a plain index, without making the tools kept', () => {
    const { index, kept } = servedFromCache();
    const plain: ToolIndex = { ...FIELDS, tools: TOOLS.map((tool) => structuredClone(tool)) };
    const set = PolicySet.of(index);
    // the tools asked about come from the test, not from the index: only the set's own reading is under test
    const asked = TOOLS.map((tool) => structuredClone(tool));
    expect(decisions(index, asked)).toEqual(decisions(plain, asked));
    expect(set.baseList('bot', ['*'])).toEqual(new Set(['git-ops', 'hg-ops', 'shell-exec']));
    expect(set.rulesFor(asked[0]!).map((rule) => rule.decision)).toEqual(['approve', 'allow']);
    // reading index.tools would have made every tool kept and turned the index into a list held whole
    expect(kept.every((keep) => !keep)).toBe(true);
    expect(Array.isArray(toolsOf(index))).toBe(false);
    expect(findTool(index, 'git-ops')?.name).toBe('git-ops');
  });
});
