import { describe, expect, it } from 'vitest';
import { compareToolNames, toolsOf, withLazyTools, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { catalogFor, resolveListedName, SessionManager, type SessionState } from '../../src/sessions/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';
import { manualClock } from './support.js';

// Issue #18: an index served from the scan cache makes each tool when it is read, and reading index.tools makes and
// keeps every one (~170 MB at 100,000 tools). Each reader here answers over such an index exactly as over a plain one,
// reading one tool at a time (made, not kept) or a few by name, never the whole list.

const tool = (name: string, overrides: Partial<ToolDefinition> = {}) => makeToolDefinition({ name, intent: `does ${name}`, source: { path: `tools/${name}/TOOL.hdlp`, oid: name }, ...overrides });

const TOOLS = [
  tool('alpha', { group: 'letters' }),
  tool('beta', { group: 'letters', aliases: ['bee'] }),
  tool('delta', { group: 'letters' }),
  tool('epsilon', { group: 'letters' }),
  // listed under another name over MCP (a dot is not in its alphabet)
  tool('deploy.prod'),
  tool('gamma'),
  tool('old-name', { unlisted: true }),
  tool('rare', { group: 'rarities' }),
  tool('tool_find'),
].sort(compareToolNames);

const toolset = (name: string, tools: string[]): ToolsetDefinition => ({ name, description: `work with ${name}`, tools, author: 't', why: 't', source: { path: `toolsets/${name}/TOOLSET.hdlp`, oid: name } });
const FIELDS = { source: 'test', commit: 'c1', toolsets: [toolset('letters-set', ['letters']), toolset('everything', [])], skills: [], errors: [], warnings: [], scanned_at: '' };

const plainIndex = (): ToolIndex => ({ ...FIELDS, tools: TOOLS.map((entry) => structuredClone(entry)) });

// the index as a warm scan cache serves it: each tool made from its line when asked for, kept or not as asked
function servedFromCache(): { index: ToolIndex; kept: boolean[] } {
  const kept: boolean[] = [];
  const index = withLazyTools(FIELDS, TOOLS.map((entry) => entry.name), (position, keep) => {
    kept.push(keep);
    return structuredClone(TOOLS[position]!);
  });
  return { index, kept };
}

async function sessionOver(index: ToolIndex): Promise<{ manager: SessionManager; state: SessionState }> {
  // the matcher (another reader) over a plain copy: only the sessions' reading is under test
  const registry = { index, matcher: createMatcher(plainIndex()) };
  const manager = new SessionManager({ registry: () => registry, config: { onDemand: ['rarities'], deny: ['gamma'] }, clock: manualClock() });
  const opened = await manager.open();
  if (!opened.ok) throw new Error(opened.message);
  return { manager, state: opened.session };
}

// both sides, the plain index's and the served one's, with what the served one made
async function bothSides() {
  const plain = await sessionOver(plainIndex());
  const { index, kept } = servedFromCache();
  return { plain, served: await sessionOver(index), index, kept };
}

const names = (tools: readonly { name: string }[]) => tools.map((entry) => entry.name);

describe('the readers of a served index (issue #18)', () => {
  describe('when a session with no toolset asks for its view, tools/list and its prompt block', () => {
    it('answers as over a plain index, making each tool without keeping it', async () => {
      const { plain, served, index, kept } = await bothSides();
      const view = served.manager.view(served.state);
      const plainView = plain.manager.view(plain.state);
      expect(view.digest).toBe(plainView.digest);
      expect(view.positions).toEqual(plainView.positions);
      expect(catalogFor(index).toolsFor(view)).toEqual(catalogFor(plain.manager.registryView().index).toolsFor(plainView));
      expect(catalogFor(index, 'provider').toolsFor(view)).toEqual(catalogFor(plain.manager.registryView().index, 'provider').toolsFor(plainView));
      expect(served.manager.prompt(served.state, { chars: 2000 })).toEqual(plain.manager.prompt(plain.state, { chars: 2000 }));
      expect(names(view.visible)).toEqual(names(plainView.visible));
      // reading index.tools would have made every tool kept and turned the index into a list held whole
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.every((keep) => !keep)).toBe(true);
      // a few tools are read by position: the one reserved tool is made alone
      expect(names(view.reserved)).toEqual(['rare']);
      expect(kept.filter((keep) => keep)).toEqual([true]);
      expect(Array.isArray(toolsOf(index))).toBe(false);
    });
  });

  describe('when a session loads a tool after its first view', () => {
    it('works out the new view from names, making no tool again but the one loaded', async () => {
      const { plain, served, kept } = await bothSides();
      served.manager.view(served.state);
      const walked = kept.length;
      expect(walked).toBeGreaterThanOrEqual(TOOLS.length);
      expect(served.manager.load(served.state, 'rare')).toEqual(plain.manager.load(plain.state, 'rare'));
      const view = served.manager.view(served.state);
      expect(view.digest).toBe(plain.manager.view(plain.state).digest);
      expect(view.positions).toEqual(plain.manager.view(plain.state).positions);
      // the rights layers were asked once per subject: the second view read names, and only 'rare' was made, by name
      expect(kept.slice(walked).every((keep) => keep)).toBe(true);
      expect(kept.length - walked).toBeLessThanOrEqual(1);
    });
  });

  describe('when the catalog is asked what a name stands for', () => {
    it('resolves listed and unknown names from the names alone, making no tool', () => {
      const { index, kept } = servedFromCache();
      expect(resolveListedName(index, 'no-such-tool')).toEqual({ kind: 'tool', name: 'no-such-tool' });
      const listed = catalogFor(index).listedName('deploy.prod');
      expect(listed).not.toBe('deploy.prod');
      expect(resolveListedName(index, listed)).toEqual({ kind: 'tool', name: 'deploy.prod' });
      expect(catalogFor(index).resolve(catalogFor(index).listedName('tool_find'))).toEqual({ kind: 'tool', name: 'tool_find' });
      expect(kept).toEqual([]);
      expect(Array.isArray(toolsOf(index))).toBe(false);
    });

    it('lists every tool as over a plain index when its whole list is read', () => {
      const { index, kept } = servedFromCache();
      expect(catalogFor(index).tools).toEqual(catalogFor(plainIndex()).tools);
      expect(kept.every((keep) => !keep)).toBe(true);
      expect(Array.isArray(toolsOf(index))).toBe(false);
    });
  });

  describe('when a session enables a toolset or loads a group', () => {
    it('answers as over a plain index, making only the tools it names', async () => {
      const { plain, served, index, kept } = await bothSides();
      const steps = [
        (side: { manager: SessionManager; state: SessionState }) => side.manager.load(side.state, 'rarities'),
        (side: { manager: SessionManager; state: SessionState }) => side.manager.toolset(side.state, { action: 'enable', name: 'letters-set' }),
        (side: { manager: SessionManager; state: SessionState }) => side.manager.prompt(side.state, { chars: 2000 }),
        (side: { manager: SessionManager; state: SessionState }) => side.manager.toolset(side.state, { action: 'enable', name: 'everything' }),
      ];
      for (const step of steps) expect(step(served)).toEqual(step(plain));
      expect(names(served.manager.view(served.state).visible)).toEqual(names(plain.manager.view(plain.state).visible));
      // by name: the group loaded and the toolset's four tools, each made once at most (a whole read makes all nine kept)
      expect(kept.filter((keep) => keep).length).toBeLessThanOrEqual(5);
      expect(Array.isArray(toolsOf(index))).toBe(false);
    });
  });
});
