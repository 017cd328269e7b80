import { beforeEach, describe, expect, it } from 'vitest';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

const at = (minute: number): string => `2026-05-31T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe.each(storeKinds())('$name receipt store', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  describe('when a receipt is saved', () => {
    it('returns it whole from get, raw output included', async () => {
      const receipt = makeReceipt({ ok: false, code: 'NONZERO_EXIT', error: 'boom\n', stderr: 'boom\n', output: 'partial\n[… 10 bytes cut of 20 …]\ntail', cut_bytes: 10 });
      await db.store.receipts.save(receipt);
      expect(await db.store.receipts.get(receipt.id)).toEqual(receipt);
    });

    it('keeps text no JSON database type would: control characters, lone surrogates, key order of the spec', async () => {
      const receipt = makeReceipt({ output: 'nul \u0000 bell \u0007 é 中文 \ud800 end', params: { z: 1, a: { y: 2, b: 3 } } });
      await db.store.receipts.save(receipt);
      const [row] = await db.backend.sql('SELECT body FROM receipts WHERE id = ?', [receipt.id]);
      expect(String(row!.body).startsWith('{"ok":true,"tool":"shell-exec","method":"exec","output":')).toBe(true);
      expect(await db.store.receipts.get(receipt.id)).toEqual(receipt);
    });

    it('returns it from a second store over the same database', async () => {
      const receipt = makeReceipt();
      await db.store.receipts.save(receipt);
      const other = await db.backend.open();
      expect(await other.receipts.get(receipt.id)).toEqual(receipt);
    });

    it('refuses a second receipt with the same id, and stores the others saved with it', async () => {
      const receipt = makeReceipt();
      await db.store.receipts.save(receipt);
      const neighbour = makeReceipt();
      const outcomes = await Promise.allSettled([db.store.receipts.save({ ...receipt, ok: false }), db.store.receipts.save(neighbour)]);
      expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/already stored/) } });
      expect(outcomes[1]).toMatchObject({ status: 'fulfilled' });
      expect((await db.store.receipts.get(receipt.id))?.ok).toBe(true);
      expect(await db.store.receipts.get(neighbour.id)).toEqual(neighbour);
      expect((await db.store.receipts.verify()).ok).toBe(true);
    });

    it('stores the receipts saved with one whose caller holds U+0000, which PostgreSQL refuses alone (review O, O8)', async () => {
      const odd = makeReceipt({ caller: 'bot\u0000x', session: 's\u0000' });
      const neighbours = [makeReceipt(), makeReceipt()];
      const outcomes = await Promise.allSettled([neighbours[0]!, odd, neighbours[1]!].map((receipt) => db.store.receipts.save(receipt)));
      expect([outcomes[0], outcomes[2]]).toMatchObject([{ status: 'fulfilled' }, { status: 'fulfilled' }]);
      for (const receipt of neighbours) expect(await db.store.receipts.get(receipt.id)).toEqual(receipt);
      // kept whole where the database can hold it, else refused saying why
      if (outcomes[1]!.status === 'fulfilled') expect(await db.store.receipts.get(odd.id)).toEqual(odd);
      else expect(String(outcomes[1]!.reason)).toMatch(/its caller holds U\+0000/);
      expect((await db.store.receipts.verify()).ok).toBe(true);
    });

    it('returns undefined for an id never saved', async () => {
      expect(await db.store.receipts.get('no-such-call')).toBeUndefined();
    });
  });

  describe('when receipts are listed', () => {
    beforeEach(async () => {
      await db.store.receipts.save(makeReceipt({ id: 'r1', tool: 'shell-exec', ok: true, started_at: at(1) }));
      await db.store.receipts.save(makeReceipt({ id: 'r2', tool: 'file-read', ok: false, code: 'IO_ERROR', started_at: at(2) }));
      await db.store.receipts.save(makeReceipt({ id: 'r3', tool: 'shell-exec', ok: false, code: 'NONZERO_EXIT', started_at: at(3) }));
      await db.store.receipts.save(makeReceipt({ id: 'r4', tool: 'git-ops', ok: true, started_at: at(4) }));
      // same start as r4, saved later: newer
      await db.store.receipts.save(makeReceipt({ id: 'r5', tool: 'git-ops', ok: true, started_at: at(4) }));
    });

    it.each([
      ['no filter: newest first', {}, ['r5', 'r4', 'r3', 'r2', 'r1']],
      ['failed only', { status: 'failed' }, ['r3', 'r2']],
      ['ok only', { status: 'ok' }, ['r5', 'r4', 'r1']],
      ['one tool', { tool: 'shell-exec' }, ['r3', 'r1']],
      ['failed calls of one tool', { tool: 'shell-exec', status: 'failed' }, ['r3']],
      ['since a time', { since: at(3) }, ['r5', 'r4', 'r3']],
      ['since a Date', { since: new Date(at(4)) }, ['r5', 'r4']],
      ['a first page', { limit: 2 }, ['r5', 'r4']],
      ['a second page', { limit: 2, offset: 2 }, ['r3', 'r2']],
      ['past the end', { offset: 10 }, []],
    ] as const)('returns %s', async (_case, query, ids) => {
      expect((await db.store.receipts.list(query)).map((receipt) => receipt.id)).toEqual(ids);
    });

    it('throws naming the format for a since that is not a time', async () => {
      await expect(db.store.receipts.list({ since: 'yesterday-ish' })).rejects.toThrow(/ISO date/);
    });
  });

  describe('when many receipts are saved at once from two stores over one database', () => {
    it('stores every one exactly once, in one unbroken chain', async () => {
      const other = await db.backend.open();
      const receipts = Array.from({ length: 200 }, () => makeReceipt());
      await Promise.all(receipts.map((receipt, index) => (index % 2 ? other : db.store).receipts.save(receipt)));
      const [count] = await db.backend.sql('SELECT count(*) AS n, count(DISTINCT id) AS ids, min(seq) AS low, max(seq) AS high FROM receipts');
      expect(Object.fromEntries(Object.entries(count!).map(([key, value]) => [key, Number(value)]))).toEqual({ n: 200, ids: 200, low: 1, high: 200 });
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 200, head: { seq: 200 } });
    });
  });
});
