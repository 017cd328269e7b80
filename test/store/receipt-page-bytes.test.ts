import { beforeEach, describe, expect, it } from 'vitest';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

const KIB = 1024;

describe.each(storeKinds())('$name receipts paged by bytes', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  beforeEach(async () => {
    // newest first: r0 (small), r1..r3 (100 KiB each), r4 (small)
    const sizes = [10, 100 * KIB, 100 * KIB, 100 * KIB, 10];
    for (const [index, size] of sizes.entries()) {
      await db.store.receipts.save(makeReceipt({ id: `r${index}`, output: 'x'.repeat(size), started_at: new Date(Date.parse('2026-12-01T10:00:00Z') - index * 1000).toISOString() }));
    }
  });

  describe('when the receipts fit in the bytes', () => {
    it('returns the page limit asks for, and says whether more follow', async () => {
      const page = await db.store.receipts.page({ limit: 5 }, 10 * 1024 * KIB);
      expect(page.receipts.map((receipt) => receipt.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
      expect(page).toMatchObject({ more: false, endedEarly: false });
      expect(await db.store.receipts.page({ limit: 2 }, 10 * 1024 * KIB)).toMatchObject({ more: true, endedEarly: false });
    });
  });

  describe('when the next receipt would pass the bytes', () => {
    it('ends the page before it, and says so', async () => {
      const page = await db.store.receipts.page({ limit: 5 }, 250 * KIB);
      expect(page.receipts.map((receipt) => receipt.id)).toEqual(['r0', 'r1', 'r2']);
      expect(page).toMatchObject({ more: true, endedEarly: true });
    });

    it('still returns a first receipt larger than the bytes on its own', async () => {
      const page = await db.store.receipts.page({ limit: 5, offset: 1 }, 10 * KIB);
      expect(page.receipts.map((receipt) => receipt.id)).toEqual(['r1']);
      expect(page).toMatchObject({ more: true, endedEarly: true });
    });

    it('keeps the other filters', async () => {
      await db.store.receipts.save({ ...makeReceipt({ id: 'mine', started_at: '2026-12-01T09:00:00Z' }), caller: 'bot' });
      const page = await db.store.receipts.page({ caller: 'bot', limit: 5 }, 10);
      expect(page.receipts.map((receipt) => receipt.id)).toEqual(['mine']);
      expect(page).toMatchObject({ more: false, endedEarly: false });
    });
  });

  describe('when a text search may read fewer bytes than the rows it may read hold', () => {
    it('searches only the newest rows that fit in the bytes', async () => {
      const found = await db.store.receipts.list({ text: 'xx', searchRows: 10, searchBytes: 250 * KIB });
      expect(found.map((receipt) => receipt.id)).toEqual(['r0', 'r1', 'r2']);
      const all = await db.store.receipts.list({ text: 'xx', searchRows: 10 });
      expect(all.map((receipt) => receipt.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    });
  });
});
