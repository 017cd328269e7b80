import { afterEach, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import type { SessionState } from '../../src/sessions/index.js';
import { openTestGateway } from '../helpers/gateway.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function gatewayOver(repo = 'native-repo') {
  const opened = await openTestGateway(repo);
  cleanups.push(opened.cleanup);
  const session = async (): Promise<SessionState> => {
    const result = await opened.gateway.sessions.open({});
    if (!result.ok) throw new Error(result.message);
    return result.session;
  };
  return { ...opened, session };
}

const first = (result: MatchResult): string | undefined => (result.found ? result.candidates[0]?.name : undefined);

describe('Gateway sessions', () => {
  describe('when a session called a tool', () => {
    it('puts that tool first among those its next intent matches', async () => {
      const { gateway, session } = await gatewayOver();
      const [s1, other] = [await session(), await session()];
      expect(first(await gateway.match('open the file', { session: s1 }))).toBe('file-read');
      // file-write waits for confirmation: the agent still reached for it
      expect((await gateway.call('file-write', { path: 'notes.txt', content: 'x' }, { session: s1 })).kind).toBe('confirmation_required');
      expect(first(await gateway.match('open the file', { session: s1 }))).toBe('file-write');
      expect(first(await gateway.match('open the file', { session: other }))).toBe('file-read');
      expect(first(await gateway.match('open the file'))).toBe('file-read');
    });
  });

  describe('when matches and calls carry a session', () => {
    it('stores them in order, and nothing for calls and matches without one', async () => {
      const { gateway, session } = await gatewayOver();
      const s1 = await session();
      await gateway.match('who wrote this', { session: s1 });
      await gateway.call('git-ops', { op: 'status' }, { session: s1 });
      await gateway.call('no-such-tool', {}, { session: s1 });
      await gateway.match('who wrote this');
      await gateway.call('git-ops', { op: 'status' });
      await gateway.close();
      const { openSqliteStore } = await import('../../src/store/index.js');
      const store = openSqliteStore({ path: gateway.config.receiptsDb });
      try {
        const events = await store.usage.list();
        expect(events).toEqual([
          expect.objectContaining({ kind: 'match', session: s1.id, intent: 'who wrote this', tools: [], outcome: 'none', commit: gateway.registry.index.commit }),
          expect.objectContaining({ kind: 'call', session: s1.id, tool: 'git-ops' }),
        ]);
      } finally {
        await store.close();
      }
    });
  });
});
