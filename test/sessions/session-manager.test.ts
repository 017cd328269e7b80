import { describe, expect, it } from 'vitest';
import { compareToolNames, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { MAX_BUDGET_CHARS, SessionManager, type SessionsConfig } from '../../src/sessions/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';
import { manualClock } from './support.js';

function toolset(name: string, tools: string[], hint?: string): ToolsetDefinition {
  return { name, description: `work with ${name}`, tools, ...(hint ? { hint } : {}), author: 't', why: 't', source: { path: `toolsets/${name}/TOOLSET.hdlp`, oid: name } };
}

function indexOf(tools: ToolDefinition[], toolsets: ToolsetDefinition[] = [], skills: ToolIndex['skills'] = []): ToolIndex {
  return { source: 'test', commit: 'c1', tools: [...tools].sort(compareToolNames), toolsets, skills, errors: [], warnings: [], scanned_at: '' };
}

function managerOver(index: ToolIndex, config: Partial<SessionsConfig> = {}) {
  const clock = manualClock();
  const registry = { index, matcher: createMatcher(index) };
  return { manager: new SessionManager({ registry: () => registry, config, clock }), clock };
}

const tool = (name: string, overrides: Partial<ToolDefinition> = {}) => makeToolDefinition({ name, intent: `does ${name}`, source: { path: `tools/${name}/TOOL.hdlp`, oid: name }, ...overrides });

const TOOLS = [
  tool('alpha', { group: 'letters' }),
  tool('beta', { group: 'letters', aliases: ['bee'] }),
  tool('gamma'),
  tool('old-name', { unlisted: true }),
  tool('rare', { group: 'rarities' }),
];

describe('SessionManager', () => {
  describe('when it decides what each tool is (the one visibility function)', () => {
    it('says visible, reserved, hidden or forbidden, each with a sentence', async () => {
      const { manager } = managerOver(indexOf(TOOLS, [toolset('letters', ['letters'])]), { deny: ['gamma'], onDemand: ['rarities'] });
      const opened = await manager.open({ toolsets: ['letters'] });
      if (!opened.ok) throw new Error(opened.message);
      const state = (name: string) => manager.explain(opened.session, name);
      expect(state('alpha')).toMatchObject({ state: 'visible', reason: "'alpha' is in the active toolset 'letters'" });
      expect(state('bee')).toMatchObject({ tool: 'beta', state: 'hidden', reason: "'bee' is an alias of 'beta': a call by it runs 'beta', but only 'beta' is listed" });
      expect(state('old-name')).toMatchObject({ state: 'hidden', reason: "'old-name' is unlisted: it runs when called by name but is never advertised" });
      expect(state('gamma')).toMatchObject({ state: 'forbidden', reason: "'gamma' is on the gateway's deny list (sessions.deny in the config)" });
      expect(state('rare')).toMatchObject({ state: 'reserved', reason: expect.stringContaining('on demand') });
      expect(state('nothing')).toMatchObject({ found: false });
      // the view, the prompt block and the call decision agree with it
      const view = manager.view(opened.session);
      expect(view.visible.map((entry) => entry.name)).toEqual(['alpha', 'beta']);
      expect(view.reserved.map((entry) => entry.name)).toEqual(['rare']);
      expect(manager.decideCall(opened.session, 'gamma')).toMatchObject({ kind: 'refuse' });
      expect(manager.decideCall(opened.session, 'old-name')).toMatchObject({ kind: 'run' });
      expect(manager.prompt(opened.session, {}).text).not.toMatch(/gamma|old-name/);
    });

    it('lists the whole registry but on-demand tools when no toolset is active', async () => {
      const { manager } = managerOver(indexOf(TOOLS), { onDemand: ['rare'] });
      const opened = await manager.open();
      if (!opened.ok) throw new Error(opened.message);
      expect(manager.view(opened.session).visible.map((entry) => entry.name)).toEqual(['alpha', 'beta', 'gamma']);
      expect(manager.explain(opened.session, 'rare').found && manager.explain(opened.session, 'rare')).toMatchObject({ state: 'reserved' });
    });
  });

  describe('when a restored connection opens its lost session again with a toolset a rescan took away', () => {
    it('holds the toolsets it was opened with and tells the gone one, where a new session is refused', async () => {
      const before = indexOf(TOOLS, [toolset('letters', ['letters']), toolset('misc', ['gamma'])]);
      const after = { ...indexOf(TOOLS, [toolset('letters', ['letters'])]), commit: 'c2' };
      let registry = { index: before, matcher: createMatcher(before) };
      const manager = new SessionManager({ registry: () => registry, clock: manualClock() });
      manager.noteSwap(before, after);
      registry = { index: after, matcher: createMatcher(after) };
      expect(await manager.open({ toolsets: ['letters', 'misc'] })).toMatchObject({ ok: false, code: 'TOOLSET_NOT_FOUND', message: expect.stringContaining("toolset 'misc' is gone since commit c2") });
      const restored = await manager.open({ toolsets: ['Letters', 'misc', 'letters'], id: 'mcp-1', restored: true });
      if (!restored.ok) throw new Error(restored.message);
      expect(restored.session.toolsets.map((active) => active.name)).toEqual(['letters', 'misc']);
      expect(restored.gone).toEqual([{ name: 'misc', message: expect.stringContaining("toolset 'misc' is gone since commit c2: its file toolsets/misc/TOOLSET.hdlp was removed; disable it") }]);
      expect(manager.view(restored.session).visible.map((entry) => entry.name)).toEqual(['alpha', 'beta']);
      expect(manager.toolset(restored.session, { action: 'disable', name: 'misc' })).toMatchObject({ ok: true });
      expect(manager.goneHeld(restored.session)).toEqual([]);
    });
  });

  describe('when a toolset is enabled for one turn', () => {
    it('goes when the turn ends, while session toolsets stay', async () => {
      const { manager } = managerOver(indexOf(TOOLS, [toolset('letters', ['letters']), toolset('g', ['gamma'])]));
      const opened = await manager.open();
      if (!opened.ok) throw new Error(opened.message);
      manager.toolset(opened.session, { action: 'enable', name: 'letters', scope: 'turn' });
      manager.toolset(opened.session, { action: 'enable', name: 'g' });
      expect(manager.endTurn(opened.session)).toBe(true);
      expect(opened.session.toolsets.map((entry) => entry.name)).toEqual(['g']);
    });
  });

  describe('when tool_load gets a group', () => {
    it('loads each of its tools the session may use', async () => {
      const { manager } = managerOver(indexOf(TOOLS, [toolset('g', ['gamma'])]));
      const opened = await manager.open({ toolsets: ['g'] });
      if (!opened.ok) throw new Error(opened.message);
      expect(manager.load(opened.session, 'letters')).toMatchObject({ ok: true, data: { loaded: ['alpha', 'beta'] }, changed: true });
      expect(manager.view(opened.session).visible.map((entry) => entry.name)).toEqual(['alpha', 'beta', 'gamma']);
      expect(manager.load(opened.session, 'gama')).toMatchObject({ ok: false, code: 'TOOL_NOT_FOUND', message: expect.stringContaining("did you mean 'gamma'") });
    });
  });

  describe('when the registry has 10,000 tools', () => {
    it('keeps the prompt block under budget, names folded groups, and says what it dropped', async () => {
      const tools = Array.from({ length: 10_000 }, (_, position) =>
        tool(`tool-${String(position).padStart(5, '0')}`, { intent: `处理第 ${position} 号任务 and return the raw result of job ${position}`, ...(position % 10 === 0 ? {} : { group: `family-${position % 97}` }), ...(position % 500 === 1 ? { constraints: { timeout_ms: 1, max_output_bytes: 1, require_confirm: true } } : {}) }),
      );
      const { manager } = managerOver(indexOf(tools, [toolset('small', ['tool-00000', 'tool-00010'], 'be brief')]));
      const opened = await manager.open({ toolsets: ['small'] });
      if (!opened.ok) throw new Error(opened.message);
      for (const [options, budget] of [[{ windowTokens: 8_000 }, 640], [{ windowTokens: 1_000_000 }, MAX_BUDGET_CHARS], [{ chars: 3_000 }, 3_000]] as const) {
        const block = manager.prompt(opened.session, options);
        expect(block.budget.chars).toBe(budget);
        expect(block.budget.used).toBeLessThanOrEqual(budget);
        expect(block.text).toContain('- tool-00000(');
        expect(block.text).toContain('Hint (small): be brief');
        expect(block.text).toContain('Active toolsets: small');
        // the catalogue keeps its marked line whatever the squeeze
        expect(block.text).toContain('- small [active]');
        expect(block.dropped.lines).toBe(block.dropped.names.length);
        expect(manager.prompt(opened.session, options)).toEqual(block);
      }
      const roomy = manager.prompt(opened.session, { chars: MAX_BUDGET_CHARS });
      expect(roomy.text).toMatch(/- family-\d+ \(group of \d+: tool-\d+, tool-\d+, tool-\d+, …\) \[needs confirmation\]/);
    });
  });

  describe('when a block is asked for again', () => {
    it('gives the same block for the same state, a fresh one as soon as the scope, the toolsets or the budget differ, and no caller can change it for the others', async () => {
      const skills = [{ name: 'lettering', description: 'when writing letters', toolset: 'letters', body: 'b', source: { path: 'skills/lettering/SKILL.md', oid: 's' } }];
      const { manager } = managerOver(indexOf(TOOLS, [toolset('letters', ['letters']), toolset('misc', ['gamma'])], skills));
      const [first, second] = [await manager.open(), await manager.open()];
      if (!first.ok || !second.ok) throw new Error('not opened');
      const render = (state: typeof first.session, chars = 4000) => manager.prompt(state, { chars });
      manager.toolset(first.session, { action: 'enable', name: 'letters', scope: 'turn' });
      manager.toolset(second.session, { action: 'enable', name: 'letters' });
      const turn = render(first.session);
      expect(turn.text).toContain('- letters [active this turn]');
      expect(turn.text).not.toContain('lettering');
      expect(render(first.session)).toBe(turn);
      // same toolsets and view, another scope: another block
      expect(render(second.session).text).toContain('- letters [active]');
      expect(render(first.session, 120)).not.toEqual(turn);
      manager.toolset(first.session, { action: 'enable', name: 'misc' });
      expect(render(first.session).text).toContain('Active toolsets: letters, misc');
      manager.endTurn(first.session);
      expect(render(first.session).text).toContain('Active toolsets: misc');
      expect(render(first.session).text).toContain('- lettering — when writing letters');
      expect(Object.isFrozen(turn) && Object.isFrozen(turn.dropped) && Object.isFrozen(turn.budget)).toBe(true);
    });
  });
});
