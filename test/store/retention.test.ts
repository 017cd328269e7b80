import { beforeEach, describe, expect, it } from 'vitest';
import { schedulePruning, scheduleRetention, type NewApproval } from '../../src/store/index.js';
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

const approvalRequest = (ttlDays: number): NewApproval => ({
  caller: 'bot', session: null, tool: 'file-write', method: 'write_file', executor: 'gatekeeper',
  params: { path: 'etc/notes.txt', content: 'hello' }, commit: 'c'.repeat(40),
  rule: { where: 'policies/writes.hdlp:8:5', reason: 'a write outside agent/ needs a person', self_approval: false, approvers: { roles: ['approver'] }, elicit: false },
  ttlMs: ttlDays * DAY,
});

describe.each(storeKinds())('$name approval request retention', (kind) => {
  if (!runsHere(kind)) return;
  let now = NOW;
  beforeEach(() => {
    now = NOW;
  });
  const db = useStore(kind, { now: () => now });

  /** A request made `createdDaysAgo` ago; decided `decidedDaysAgo` ago (if given), its receipt stored when `settled`. */
  const request = async (createdDaysAgo: number, decided?: { daysAgo: number; status: 'approved' | 'denied'; settled: boolean }): Promise<string> => {
    now = NOW - createdDaysAgo * DAY;
    const created = await db.store.approvals.create(approvalRequest(365));
    if (decided) {
      now = NOW - decided.daysAgo * DAY;
      await db.store.approvals.decide(created.id, { status: decided.status, by: 'alice', reason: null, via: 'api' });
      if (decided.settled) await db.store.approvals.settle(created.id, `receipt-of-${created.id}`);
    }
    now = NOW;
    return created.id;
  };
  const ids = async (): Promise<string[]> => (await db.store.approvals.list({ limit: 1000 })).map((record) => record.id).sort();

  describe('when requests are older than days', () => {
    it('deletes the decided ones whose receipt is stored, and keeps a pending one and an approved one still running', async () => {
      const pending = await request(40);
      const denied = await request(40, { daysAgo: 39, status: 'denied', settled: true });
      const receiptLost = await request(40, { daysAgo: 3, status: 'approved', settled: false });
      const running = await request(40, { daysAgo: 0.01, status: 'approved', settled: false });
      const young = await request(1, { daysAgo: 1, status: 'denied', settled: true });
      expect(await db.store.approvals.prune({ days: 30 })).toBe(2);
      expect(await ids()).toEqual([pending, running, young].sort());
      expect(await ids()).not.toContain(denied);
      expect(await ids()).not.toContain(receiptLost);
      expect(await db.store.approvals.prune({ days: 30 })).toBe(0);
    });
  });

  describe('when there are more requests than max_rows', () => {
    it('keeps the newest max_rows and every pending one beyond them', async () => {
      const oldPending = await request(10);
      const decided: string[] = [];
      for (let day = 9; day >= 1; day -= 1) decided.push(await request(day, { daysAgo: day, status: 'denied', settled: true }));
      expect(await db.store.approvals.prune({ maxRows: 3 })).toBe(6);
      expect(await ids()).toEqual([oldPending, ...decided.slice(-3)].sort());
      expect((await db.store.approvals.get(oldPending))?.status).toBe('pending');
    });

    it('deletes in batches until only max_rows are left', async () => {
      for (let index = 0; index < 600; index += 1) await request(1, { daysAgo: 1, status: 'denied', settled: true });
      expect(await db.store.approvals.prune({ maxRows: 50 })).toBe(550);
      expect(await db.backend.sql('SELECT count(*) AS n FROM approvals')).toEqual([{ n: 50 }]);
    });
  });

  describe('when a policy sets no limit', () => {
    it('deletes nothing', async () => {
      await request(400, { daysAgo: 400, status: 'denied', settled: true });
      expect(await db.store.approvals.prune({})).toBe(0);
    });
  });

  describe('when pruning is scheduled', () => {
    it('prunes at once and reports how many it deleted', async () => {
      for (let day = 5; day >= 1; day -= 1) await request(day, { daysAgo: day, status: 'denied', settled: true });
      const pruned = new Promise((resolve) => {
        const schedule = schedulePruning(() => db.store.approvals.prune({ maxRows: 2 }), { intervalMs: 60_000, onPruned: (deleted) => void schedule.stop().then(() => resolve(deleted)) });
      });
      expect(await pruned).toBe(3);
    });
  });
});

describe.each(storeKinds())('$name rejected-call retention', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind, { now: () => NOW });

  const reject = (id: string, days: number): Promise<void> =>
    db.store.rejections.save({ type: 'rejected', id, at: daysAgo(days), caller: 'bot', session: null, tool: 'shel-exec', code: 'TOOL_NOT_FOUND', reason: "unknown tool 'shel-exec'", params: {} });
  const ids = async (): Promise<string[]> => (await db.store.rejections.list({ limit: 1000 })).map((record) => record.id);

  it('deletes the records older than days', async () => {
    for (const [id, days] of [['r1', 40], ['r2', 31], ['r3', 29], ['r4', 0]] as const) await reject(id, days);
    expect(await db.store.rejections.prune({ days: 30 })).toBe(2);
    expect(await ids()).toEqual(['r4', 'r3']);
  });

  it('keeps the newest max_rows, in batches', async () => {
    for (let index = 0; index < 600; index += 1) await reject(`r${index}`, 1);
    expect(await db.store.rejections.prune({ maxRows: 3 })).toBe(597);
    expect(await ids()).toEqual(['r599', 'r598', 'r597']);
    expect(await db.store.rejections.prune({ maxRows: 3 })).toBe(0);
  });

  it('deletes nothing under a policy with no limit', async () => {
    await reject('old', 400);
    expect(await db.store.rejections.prune({})).toBe(0);
    expect(await ids()).toEqual(['old']);
  });
});
