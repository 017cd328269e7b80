import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/sqlite-schema.js';
import { SqliteEventLog } from '../../src/store/sqlite-events.js';
import { runsHere, storeKinds, useStore } from './backends.js';

const event = (type: string, n: number) => ({ type, at_ms: 1_780_000_000_000 + n, data: JSON.stringify({ n }) });

describe.each(storeKinds())('$name event log', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  describe('when the log is empty', () => {
    it('says it starts after its last seq, 0', async () => {
      expect(await db.store.events.bounds()).toEqual({ first: 1, last: 0 });
      expect(await db.store.events.after(0, 10)).toEqual([]);
    });
  });

  describe('when events are read by type', () => {
    it('gives only those types, after an id oldest first or up to one newest first', async () => {
      const stored = await db.store.events.append([event('scan.failed', 1), event('receipt.stored', 2), event('scan.completed', 3), event('scan.failed', 4), event('call.rejected', 5)]);
      expect(await db.store.events.after(0, 10, ['scan.failed', 'scan.completed'])).toEqual([stored[0], stored[2], stored[3]]);
      expect(await db.store.events.after(1, 1, ['scan.failed', 'scan.completed'])).toEqual([stored[2]]);
      expect(await db.store.events.newest(5, 2, ['scan.failed'])).toEqual([stored[3], stored[0]]);
      expect(await db.store.events.newest(3, 10, ['scan.failed', 'call.rejected'])).toEqual([stored[0]]);
      expect(await db.store.events.newest(5, 2)).toEqual([stored[4], stored[3]]);
      expect(await db.store.events.after(0, 10, [])).toEqual([]);
      expect(await db.store.events.newest(5, 10, [])).toEqual([]);
    });
  });

  describe('when events are appended', () => {
    it('gives them increasing seqs in the order given and reads them back after any seq', async () => {
      const stored = await db.store.events.append([event('scan.completed', 1), event('receipt.stored', 2)]);
      expect(stored.map((item) => item.seq)).toEqual([1, 2]);
      expect(await db.store.events.after(0, 10)).toEqual(stored);
      expect(await db.store.events.after(1, 10)).toEqual([stored[1]]);
      expect(await db.store.events.after(0, 1)).toEqual([stored[0]]);
    });

    it('serialises appends of two stores over one database, so that "after N" never skips one', async () => {
      const other = await db.backend.open();
      const appends = await Promise.all(
        Array.from({ length: 40 }, (_item, index) => (index % 2 ? db.store : other).events.append([event('receipt.stored', index), event('call.rejected', index)])),
      );
      const seqs = appends.flat().map((item) => item.seq).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 80 }, (_item, index) => index + 1));
      const read = await other.events.after(0, 1000);
      expect(read.map((item) => item.seq)).toEqual(seqs);
      // each append's two events stay next to each other, in order
      for (const pair of appends) expect(pair[1]!.seq).toBe(pair[0]!.seq + 1);
    });
  });

  // U11-12: every instance sees every event; the one whose claim is inserted first POSTs it to the target
  describe('when instances claim the delivery of an event to a webhook target', () => {
    it('grants one claim per (event, target) across two stores over one database, whoever asks first', async () => {
      const other = await db.backend.open();
      const [stored] = await db.store.events.append([event('call.rejected', 1)]);
      const claims = await Promise.all(Array.from({ length: 20 }, (_item, index) => (index % 2 ? db.store : other).events.claimDelivery(stored!.seq, 'target-a', `instance-${index}`, 1_780_000_000_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // another target, another event: claims of their own
      expect(await other.events.claimDelivery(stored!.seq, 'target-b', 'instance-1', 1_780_000_000_000)).toBe(true);
      expect(await db.store.events.claimDelivery(stored!.seq + 1, 'target-a', 'instance-1', 1_780_000_000_000)).toBe(true);
      expect(await db.store.events.claimDelivery(stored!.seq, 'target-b', 'instance-2', 1_780_000_000_000)).toBe(false);
    });

    it('drops the claims of pruned events with them', async () => {
      const stored = await db.store.events.append(Array.from({ length: 4 }, (_item, index) => event('call.rejected', index)));
      for (const item of stored) expect(await db.store.events.claimDelivery(item.seq, 'target', 'instance-1', 1_780_000_000_000)).toBe(true);
      expect(await db.store.events.prune(2)).toBe(2);
      // the rows of the two pruned events went: a claim of their seq is granted again; the kept ones' are not
      expect(await Promise.all(stored.map((item) => db.store.events.claimDelivery(item.seq, 'target', 'instance-2', 1_780_000_000_000)))).toEqual([true, true, false, false]);
    });
  });

  describe('when the log is pruned', () => {
    it('keeps the newest events, never gives a pruned seq again, and says where it now starts', async () => {
      await db.store.events.append(Array.from({ length: 10 }, (_item, index) => event('receipt.stored', index)));
      expect(await db.store.events.prune(3)).toBe(7);
      expect(await db.store.events.bounds()).toEqual({ first: 8, last: 10 });
      const [next] = await db.store.events.append([event('scan.failed', 11)]);
      expect(next!.seq).toBe(11);
      expect((await db.store.events.after(0, 100)).map((item) => item.seq)).toEqual([8, 9, 10, 11]);
    });
  });
});

describe('SQLite event log on a connection that waits for fsync (synchronous = FULL, as receipts are written)', () => {
  it('commits its events at NORMAL (no fsync holding the event loop) and leaves the connection at FULL', async () => {
    const database = new BetterSqlite3(':memory:');
    try {
      database.pragma('synchronous = FULL');
      migrate(database);
      const pragmas: string[] = [];
      const pragma = database.pragma.bind(database);
      database.pragma = ((source: string, options?: { simple?: boolean }) => {
        // the level each statement that changes the log runs at
        if (source.startsWith('synchronous =')) pragmas.push(source);
        return pragma(source, options);
      }) as typeof database.pragma;
      const log = new SqliteEventLog(database);
      await log.append([event('receipt.stored', 1)]);
      await log.append([event('receipt.stored', 2), event('call.rejected', 3)]);
      expect(pragmas).toEqual(['synchronous = 1', 'synchronous = 2', 'synchronous = 1', 'synchronous = 2']);
      expect(pragma('synchronous', { simple: true })).toBe(2);
      expect((await log.after(0, 10)).map((item) => item.seq)).toEqual([1, 2, 3]);
    } finally {
      database.close();
    }
  });
});
