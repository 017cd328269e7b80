import { describe, expect, it } from 'vitest';
import { canonicalReceiptText } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

// A receipt of 16 MB of output (96 MB of canonical text for NULs) was written on the gateway's event loop: its text,
// its SHA-256 and one SQLite insert held every other request for seconds. A file's store now writes such receipts in a
// thread of its own; these check what the chain must still be: complete, in the order of the saves, verifiable.

const MIB = 1024 * 1024;

describe.each(storeKinds())('$name store, with large receipts among small ones', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  describe('when large and small receipts are saved concurrently', () => {
    it('links them in the order they were saved, each body its canonical text, and the chain verifies', async () => {
      const receipts = Array.from({ length: 12 }, (_, index) =>
        makeReceipt({ id: `mixed-${String(index).padStart(2, '0')}`, output: index % 3 === 0 ? `${index}`.padEnd(300_000, index % 2 ? '\u0000' : 'x') : `small ${index}\n` }),
      );
      await Promise.all(receipts.map((receipt) => db.store.receipts.save(receipt)));
      const rows = await db.backend.sql('SELECT id, body FROM receipts ORDER BY seq');
      expect(rows.map((row) => row.id)).toEqual(receipts.map((receipt) => receipt.id));
      rows.forEach((row, index) => expect(row.body === canonicalReceiptText(receipts[index]!)).toBe(true));
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 12 });
      expect((await db.store.receipts.get('mixed-03'))?.output).toBe(receipts[3]!.output);
    }, 120_000);

    it('refuses a second large receipt with a stored id, and stores the rest of its batch', async () => {
      const large = makeReceipt({ id: 'large-once', output: 'y'.repeat(MIB) });
      await db.store.receipts.save(large);
      const outcomes = await Promise.allSettled([db.store.receipts.save({ ...large, output: 'z'.repeat(MIB) }), db.store.receipts.save(makeReceipt({ id: 'after-it' }))]);
      expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining("a receipt with id 'large-once' is already stored") } });
      expect(outcomes[1]).toMatchObject({ status: 'fulfilled' });
      expect((await db.store.receipts.get('large-once'))?.output).toBe(large.output);
      expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 2 });
    });
  });

  describe('when a receipt\'s stored text is read as it is (GET /v1/receipts/:id)', () => {
    it('gives its canonical text byte for byte, large or small, only to its caller when one is named', async () => {
      const large = makeReceipt({ id: 'text-large', caller: 'ann', output: '\u0000é😀'.repeat(100_000) });
      const small = makeReceipt({ id: 'text-small', caller: 'bob', output: 'hi' });
      await Promise.all([db.store.receipts.save(large), db.store.receipts.save(small)]);
      const text = async (id: string, options?: { caller?: string }): Promise<string | undefined> => {
        const stored = await db.store.receipts.getText(id, options);
        return stored === undefined || typeof stored === 'string' ? stored : Buffer.from(stored).toString('utf8');
      };
      expect((await text('text-large')) === canonicalReceiptText(large)).toBe(true);
      expect((await text('text-large', { caller: 'ann' })) === canonicalReceiptText(large)).toBe(true);
      expect(await text('text-small')).toBe(canonicalReceiptText(small));
      expect(await text('text-large', { caller: 'bob' })).toBeUndefined();
      expect(await text('no-such-receipt')).toBeUndefined();
    });
  });

  describe('when the store is closed and opened again', () => {
    it('keeps every large receipt, and the chain goes on from it', async () => {
      await db.store.receipts.save(makeReceipt({ id: 'before-close', output: 'q'.repeat(MIB) }));
      await db.store.close();
      const again = await db.backend.open();
      await again.receipts.save(makeReceipt({ id: 'after-open', output: 'r'.repeat(MIB) }));
      expect((await db.backend.sql('SELECT id FROM receipts ORDER BY seq')).map((row) => row.id)).toEqual(['before-close', 'after-open']);
      expect(await again.receipts.verify()).toMatchObject({ ok: true, checked: 2 });
    });
  });
});

describe.each(storeKinds().filter((kind) => kind.name === 'SQLite'))('$name store writing a receipt of 4 MB of NULs', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  it('lets the event loop turn while it is written (it was held from the save to the commit), and stores it whole', async () => {
    const receipt = makeReceipt({ id: 'huge', output: '\u0000'.repeat(4_000_000) });
    let turns = 0;
    let saved = false;
    const turning = (async () => {
      while (!saved) {
        await new Promise((resolve) => setImmediate(resolve));
        turns += 1;
      }
    })();
    await db.store.receipts.save(receipt).finally(() => (saved = true));
    await turning;
    // the code before: the text made inside save(), the insert in the one turn the batch waits for: at most 2
    expect(turns).toBeGreaterThan(10);
    const [row] = await db.backend.sql("SELECT octet_length(body) AS bytes FROM receipts WHERE id = 'huge'");
    expect(row!.bytes).toBe(Buffer.byteLength(canonicalReceiptText(receipt)));
    expect(await db.store.receipts.verify()).toMatchObject({ ok: true, checked: 1 });
  }, 120_000);
});
