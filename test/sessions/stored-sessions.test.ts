import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareToolNames, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { SessionManager, StoredSessionStore } from '../../src/sessions/index.js';
import type { Store } from '../../src/store/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';
import { runsHere, storeKinds, type StoreBackend } from '../store/backends.js';
import { manualClock, type ManualClock } from './support.js';

const tool = (name: string, group?: string) => makeToolDefinition({ name, intent: `does ${name}`, ...(group ? { group } : {}), source: { path: `tools/${name}/TOOL.hdlp`, oid: name } });
const toolset = (name: string, tools: string[]): ToolsetDefinition => ({ name, description: `work with ${name}`, tools, author: 't', why: 't', source: { path: `toolsets/${name}/TOOLSET.hdlp`, oid: name } });
const TOOLS: ToolDefinition[] = [tool('alpha', 'letters'), tool('beta', 'letters'), tool('deploy'), tool('rollback')].sort(compareToolNames);
const INDEX: ToolIndex = { source: 'test', commit: 'c1', tools: TOOLS, toolsets: [toolset('letters', ['letters']), toolset('ops', ['deploy', 'rollback'])], skills: [], errors: [], warnings: [], scanned_at: '' };
const TTL = 10 * 60_000;
const IDLE = 60 * 60_000;

describe.each(storeKinds())('agent sessions in the $name store, as two gateway instances see them', (kind) => {
  if (!runsHere(kind)) return;
  let backend: StoreBackend;
  let clock: ManualClock;
  let warnings: string[];
  let a: SessionManager;
  let b: SessionManager;

  // one instance: its own store connection and its own session manager over the shared database
  const instance = async (): Promise<SessionManager> => {
    const store: Store = await backend.open({ now: clock });
    const registry = { index: INDEX, matcher: createMatcher(INDEX) };
    const sessions = new StoredSessionStore(store.agentSessions, { idleMs: IDLE, now: clock, onError: (error, what) => warnings.push(`${what}: ${error.message}`) });
    return new SessionManager({ registry: () => registry, config: { toolsetTtlMs: TTL, idleMs: IDLE }, clock, store: sessions });
  };
  const visible = (manager: SessionManager, state: Parameters<SessionManager['view']>[0]) => manager.view(state).visible.map((entry) => entry.name);

  beforeEach(async () => {
    backend = await kind.make();
    clock = manualClock();
    warnings = [];
    [a, b] = [await instance(), await instance()];
  });
  afterEach(async () => {
    await backend.cleanup();
  });

  describe('when a session is opened at one instance', () => {
    it('is found at the other with its pinned toolsets and principal, and is shared', async () => {
      const opened = await a.open({ toolsets: ['ops'], principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const there = await b.get(opened.session.id);
      expect(there).toMatchObject({ id: opened.session.id, principal: 'alice', toolsets: [{ name: 'ops', scope: 'session', deadline: null }] });
      expect(visible(b, there)).toEqual(['deploy', 'rollback']);
      expect(b.shared).toBe(true);
      expect(await b.store.count()).toBe(1);
    });
  });

  describe('when a toolset is enabled at one instance', () => {
    it('is active at the other with the same deadline, which a call at the other extends', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const atA = (await a.get(opened.session.id))!;
      expect(a.toolset(atA, { action: 'enable', name: 'letters' }).message).toMatch(/letters/);
      await a.settle(atA);
      const atB = (await b.get(opened.session.id))!;
      expect(atB.toolsets).toEqual([{ name: 'letters', scope: 'session', deadline: clock() + TTL }]);
      expect(visible(b, atB)).toEqual(['alpha', 'beta']);
      clock.advance(TTL - 1000);
      b.afterCall(atB, 'alpha');
      await b.settle(atB);
      expect((await a.get(opened.session.id))!.toolsets[0]!.deadline).toBe(clock() + TTL);
    });

    it('expires at the other instance once the deadline passes, found when the view is built (no timers)', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const atA = (await a.get(opened.session.id))!;
      a.toolset(atA, { action: 'enable', name: 'ops' });
      await a.settle(atA);
      clock.advance(TTL + 1);
      const atB = (await b.get(opened.session.id))!;
      // the row still holds it: nothing ran in the background
      expect(atB.toolsets.map((entry) => entry.name)).toEqual(['ops']);
      expect(visible(b, atB)).toEqual(['alpha', 'beta', 'deploy', 'rollback']);
      expect(atB.toolsets).toEqual([]);
      await b.settle(atB);
      expect((await a.get(opened.session.id))!.toolsets).toEqual([]);
    });
  });

  describe('when both instances change one session at the same time', () => {
    it('keeps both changes: a toolset enabled at each, a tool loaded at one', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      // both read the session before either writes
      const [atA, atB] = [(await a.get(opened.session.id))!, (await b.get(opened.session.id))!];
      a.toolset(atA, { action: 'enable', name: 'letters' });
      b.toolset(atB, { action: 'enable', name: 'ops', scope: 'turn' });
      b.load(atB, 'alpha');
      await Promise.all([a.settle(atA), b.settle(atB)]);
      for (const manager of [a, b]) {
        const merged = (await manager.get(opened.session.id))!;
        expect(merged.toolsets.map((entry) => `${entry.name}:${entry.scope}`).sort()).toEqual(['letters:session', 'ops:turn']);
        expect(merged.loaded.map((entry) => entry.name)).toEqual(['alpha']);
      }
      expect(warnings).toEqual([]);
    });

    it('keeps a disable at one and an enable at the other, and the later of two deadlines of one toolset', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const first = (await a.get(opened.session.id))!;
      a.toolset(first, { action: 'enable', name: 'letters' });
      await a.settle(first);
      const [atA, atB] = [(await a.get(opened.session.id))!, (await b.get(opened.session.id))!];
      a.toolset(atA, { action: 'disable', name: 'letters' });
      b.toolset(atB, { action: 'enable', name: 'ops' });
      await Promise.all([b.settle(atB), a.settle(atA)]);
      expect((await a.get(opened.session.id))!.toolsets.map((entry) => entry.name)).toEqual(['ops']);

      clock.advance(5000);
      const [again, other] = [(await a.get(opened.session.id))!, (await b.get(opened.session.id))!];
      a.afterCall(again, 'deploy');
      clock.advance(1000);
      b.afterCall(other, 'rollback');
      await Promise.all([a.settle(again), b.settle(other)]);
      expect((await b.get(opened.session.id))!.toolsets).toEqual([{ name: 'ops', scope: 'session', deadline: clock() + TTL }]);
    });

    it('loses no change when many requests at both instances enable and load at once', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const names = ['alpha', 'beta', 'deploy', 'rollback'];
      await Promise.all(
        names.map(async (name, index) => {
          const manager = index % 2 ? b : a;
          const state = (await manager.get(opened.session.id))!;
          manager.load(state, name);
          await manager.settle(state);
        }),
      );
      expect((await b.get(opened.session.id))!.loaded.map((entry) => entry.name).sort()).toEqual(names);
    });
  });

  describe('when a turn-scoped toolset and a loaded tool are ended at the other instance', () => {
    it('are gone at the first, while the session-scoped toolset stays', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const atA = (await a.get(opened.session.id))!;
      a.toolset(atA, { action: 'enable', name: 'ops', scope: 'turn' });
      a.toolset(atA, { action: 'enable', name: 'letters' });
      a.load(atA, 'deploy');
      await a.settle(atA);
      const atB = (await b.get(opened.session.id))!;
      expect(atB.toolsets.map((entry) => `${entry.name}:${entry.scope}`)).toEqual(['ops:turn', 'letters:session']);
      expect(atB.loaded.map((entry) => entry.name)).toEqual(['deploy']);
      expect(b.endTurn(atB)).toBe(true);
      await b.settle(atB);
      const again = (await a.get(opened.session.id))!;
      expect(again.toolsets.map((entry) => entry.name)).toEqual(['letters']);
      expect(again.loaded).toEqual([]);
    });
  });

  describe('when the sessions are listed (the console) at the other instance', () => {
    it('lists the ones opened anywhere, most recently used first, without the idle ones', async () => {
      const stale = await a.open({ principal: 'alice' });
      clock.advance(IDLE - 1000);
      const older = await a.open({ principal: 'bob' });
      clock.advance(10);
      const newer = await b.open({ principal: 'carol', toolsets: ['ops'] });
      if (!stale.ok || !older.ok || !newer.ok) throw new Error('not opened');
      clock.advance(2000);
      expect((await b.list()).map((state) => [state.principal, state.toolsets.map((entry) => entry.name)])).toEqual([['carol', ['ops']], ['bob', []]]);
    });
  });

  describe('when a session is closed at one instance', () => {
    it('is not found at the other', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      expect(await b.close(opened.session.id)).toBe(true);
      expect(await a.get(opened.session.id)).toBeUndefined();
      expect(await a.close(opened.session.id)).toBe(false);
    });
  });

  describe('when a session idles longer than idle_ms', () => {
    it('is forgotten when next looked up, and the next opening purges the other idle ones', async () => {
      const [first, second] = [await a.open({ principal: 'alice' }), await a.open({ principal: 'bob' })];
      if (!first.ok || !second.ok) throw new Error('not opened');
      clock.advance(IDLE + 1);
      expect(await b.get(first.session.id)).toBeUndefined();
      expect(await backend.sql('SELECT id FROM agent_sessions')).toEqual([{ id: second.session.id }]);
      // a fresh instance opens a session: its lazy purge takes the idle one with it
      const c = await instance();
      const third = await c.open({ principal: 'carol' });
      if (!third.ok) throw new Error(third.message);
      await c.settle(third.session);
      await expect.poll(async () => (await backend.sql('SELECT id FROM agent_sessions')).map((row) => row['id'])).toEqual([third.session.id]);
    });
  });

  describe('when a session is only read', () => {
    it('writes nothing until a minute has passed, then marks it used', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      const seen = async () => Number((await backend.sql('SELECT seen_ms FROM agent_sessions'))[0]!['seen_ms']);
      const opening = await seen();
      clock.advance(30_000);
      const state = (await b.get(opened.session.id))!;
      b.view(state);
      await b.settle(state);
      expect(await seen()).toBe(opening);
      clock.advance(31_000);
      const later = (await b.get(opened.session.id))!;
      await b.settle(later);
      expect(await seen()).toBe(clock());
    });
  });

  describe('when a row in the store is not a session this version can read', () => {
    it('treats the session as ended and says why in a warning', async () => {
      const opened = await a.open({ principal: 'alice' });
      if (!opened.ok) throw new Error(opened.message);
      await backend.sql('UPDATE agent_sessions SET state = ? WHERE id = ?', ['{"format":1,"toolsets":"all of them"}', opened.session.id]);
      expect(await b.get(opened.session.id)).toBeUndefined();
      expect(warnings.join('\n')).toMatch(/unreadable/);
    });
  });
});
