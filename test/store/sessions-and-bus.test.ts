import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runsHere, storeKinds, type StoreBackend, useStore } from './backends.js';

const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' } };

describe.each(storeKinds())('$name MCP sessions, bus and health', (kind) => {
  if (!runsHere(kind)) return;
  let now: number;
  // set before useStore's hook opens the store, which reads it
  beforeEach(() => {
    now = Date.parse('2026-05-31T10:00:00.000Z');
  });
  const db = useStore(kind, { now: () => now });

  describe('when an MCP session is recorded', () => {
    it('returns it from another store over the same database until it is deleted', async () => {
      await db.store.mcpSessions.create({ id: 'session-1', initialize, options: { toolsets: ['repo'] } });
      const other = await db.backend.open({ now: () => now });
      expect(await other.mcpSessions.get('session-1')).toEqual({ id: 'session-1', initialize, options: { toolsets: ['repo'] }, created_at: '2026-05-31T10:00:00.000Z' });
      await other.mcpSessions.delete('session-1');
      expect(await db.store.mcpSessions.get('session-1')).toBeUndefined();
    });

    it('purges sessions idle longer than asked, keeping those touched since', async () => {
      await db.store.mcpSessions.create({ id: 'idle', initialize });
      await db.store.mcpSessions.create({ id: 'busy', initialize });
      now += 60_000;
      await db.store.mcpSessions.touch('busy');
      now += 30_000;
      expect(await db.store.mcpSessions.purge(60_000)).toBe(1);
      expect(await db.store.mcpSessions.get('idle')).toBeUndefined();
      expect(await db.store.mcpSessions.get('busy')).toBeDefined();
    });

    it('keeps at most `keep` of a principal\'s sessions, its least recently seen going first, and leaves other principals\' alone (review Z16-3)', async () => {
      await db.store.mcpSessions.create({ id: 'dave-1', initialize, options: { principal: 'dave' }, keep: 3 });
      await db.store.mcpSessions.create({ id: 'anonymous', initialize, options: {}, keep: 3 });
      for (let at = 1; at <= 12; at += 1) {
        await db.store.mcpSessions.create({ id: `carol-${at}`, initialize, options: { principal: 'carol' }, keep: 3 });
        now += 1_000;
        // carol-1 is in use: seen between each of the others' opening
        await db.store.mcpSessions.touch('carol-1');
        now += 1_000;
      }
      const held = async (ids: string[]) => (await Promise.all(ids.map(async (id) => ((await db.store.mcpSessions.get(id)) ? id : undefined)))).filter(Boolean);
      expect(await held(Array.from({ length: 12 }, (_, at) => `carol-${at + 1}`))).toEqual(['carol-1', 'carol-11', 'carol-12']);
      expect(await held(['dave-1', 'anonymous'])).toEqual(['dave-1', 'anonymous']);
    });
  });

  describe('when a message is published', () => {
    it('reaches the subscribers of its topic, and not those of another', async () => {
      const received: unknown[] = [];
      const other: unknown[] = [];
      let arrive: () => void = () => undefined;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      // a subscription resolves once it listens
      await db.store.bus.subscribe('rescan', (message) => {
        received.push(message);
        arrive();
      });
      await db.store.bus.subscribe('elsewhere', (message) => other.push(message));
      await db.store.bus.publish('rescan', { reason: 'webhook', delivery: 'abc' });
      await arrived;
      expect(received).toEqual([{ reason: 'webhook', delivery: 'abc' }]);
      expect(other).toEqual([]);
    });
  });

  it('reports itself healthy', async () => {
    expect(await db.store.health()).toEqual({ ok: true });
  });
});

describe.each(storeKinds().filter((kind) => kind.name === 'PostgreSQL'))('$name bus between instances', (kind) => {
  if (!runsHere(kind)) return;
  let backend: StoreBackend;
  beforeEach(async () => {
    backend = await kind.make();
  });
  afterEach(async () => {
    await backend.cleanup();
  });

  it('delivers a message published by one store to the subscribers of another over the same database', async () => {
    const [sender, receiver] = [await backend.open(), await backend.open()];
    const arrived = new Promise<Record<string, unknown>>((resolve) => {
      void receiver.bus.subscribe('rescan', resolve).then(() => sender.bus.publish('rescan', { reason: 'webhook' }));
    });
    expect(await arrived).toEqual({ reason: 'webhook' });
  });
});
