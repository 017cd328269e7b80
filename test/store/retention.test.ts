import { describe, expect, it } from 'vitest';
import { scheduleRetention } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-05-31T10:00:00.000Z');
const daysAgo = (days: number): string => new Date(NOW - days * DAY).toISOString();

describe.each(storeKinds())('$name receipt retention', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind, { now: () => NOW });

  const saveMany = (count: number, started_at = daysAgo(0)): Promise<unknown> =>
    Promise.all(Array.from({ length: count }, () => db.store.receipts.save(makeReceipt({ started_at }))));
  const count = async (): Promise<number> => Number((await db.backend.sql('SELECT count(*) AS n FROM receipts'))[0]!.n);

  describe('when there are more receipts than max_rows', () => {
    it('deletes the oldest in batches, keeps the newest max_rows, and the rest still verifies from the checkpoint', async () => {
      await saveMany(1234);
      const [kept] = await db.backend.sql('SELECT hash FROM receipts WHERE seq = 1134');
      const result = await db.store.receipts.prune({ maxRows: 100 });
      expect(result).toEqual({ deleted: 1134, checkpoint: { seq: 1134, hash: kept!.hash } });
      expect(await count()).toBe(100);
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 100, checkpoint: { seq: 1134 }, head: { seq: 1234 } });
      expect(await db.backend.sql('SELECT seq, deleted FROM receipt_checkpoints ORDER BY seq')).toEqual([
        { seq: 500, deleted: 500 },
        { seq: 1000, deleted: 500 },
        { seq: 1134, deleted: 134 },
      ]);
    });
  });

  describe('when receipts are older than days', () => {
    it('deletes the old prefix of the chain only, up to the first receipt young enough to keep', async () => {
      await saveMany(5, daysAgo(40));
      await saveMany(3, daysAgo(10));
      await saveMany(1, daysAgo(40));
      await saveMany(2, daysAgo(1));
      expect(await db.store.receipts.prune({ days: 30 })).toMatchObject({ deleted: 5, checkpoint: { seq: 5 } });
      expect(await db.store.receipts.prune({ days: 30 })).toMatchObject({ deleted: 0, checkpoint: { seq: 5 } });
      expect(await db.store.receipts.prune({ days: 7 })).toMatchObject({ deleted: 4, checkpoint: { seq: 9 } });
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 2 });
    });

    it('deletes nothing under a policy with no limit', async () => {
      await saveMany(10, daysAgo(400));
      expect(await db.store.receipts.prune({})).toMatchObject({ deleted: 0 });
    });
  });

  describe('when a receipt just behind the checkpoint is deleted by hand', () => {
    it('names its seq as missing', async () => {
      await saveMany(20);
      await db.store.receipts.prune({ maxRows: 10 });
      await db.backend.sql('DELETE FROM receipts WHERE seq = 11');
      expect(await db.store.receipts.verify()).toMatchObject({ ok: false, broken: { seq: 11, reason: 'missing' } });
    });
  });

  describe('when pruning runs while calls save receipts, on two stores at once', () => {
    it('never fails a save, loses nothing it was not asked to delete, and the chain verifies', async () => {
      await saveMany(1500);
      const other = await db.backend.open({ now: () => NOW });
      const saving = Promise.all(Array.from({ length: 600 }, (_, index) => (index % 2 ? other : db.store).receipts.save(makeReceipt())));
      const [pruned, prunedOther] = await Promise.all([db.store.receipts.prune({ maxRows: 200 }), other.receipts.prune({ maxRows: 200 }), saving]);
      const deleted = pruned.deleted + prunedOther.deleted;
      expect(deleted).toBeGreaterThan(0);
      expect(await count()).toBe(2100 - deleted);
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, head: { seq: 2100 } });
    });
  });

  describe('when retention is scheduled', () => {
    it('prunes at once and reports what it deleted', async () => {
      await saveMany(30);
      const pruned = new Promise((resolve) => {
        const schedule = scheduleRetention(db.store.receipts, { maxRows: 10 }, { intervalMs: 60_000, onPruned: (result) => void schedule.stop().then(() => resolve(result)) });
      });
      expect(await pruned).toMatchObject({ deleted: 20, checkpoint: { seq: 20 } });
    });
  });
});
