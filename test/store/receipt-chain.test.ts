import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { canonicalReceiptText, GENESIS, linkHash } from '../../src/store/index.js';
import { runs } from '../helpers/property-runs.js';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

describe.each(storeKinds())('$name receipt chain', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  beforeEach(async () => {
    for (let index = 1; index <= 10; index++) await db.store.receipts.save(makeReceipt({ id: `r${index}`, output: `hello ${index}\n` }));
  });

  const linkOf = async (seq: number): Promise<{ prev_hash: string; hash: string; body: string }> => {
    const [row] = await db.backend.sql('SELECT prev_hash, hash, body FROM receipts WHERE seq = ?', [seq]);
    return row as { prev_hash: string; hash: string; body: string };
  };

  describe('when nobody touched the store', () => {
    it('verifies clean from genesis to the head', async () => {
      const [head] = await db.backend.sql('SELECT hash FROM receipts WHERE seq = 10');
      expect(await db.store.receipts.verify()).toEqual({ ok: true, checked: 10, checkpoint: GENESIS, head: { seq: 10, hash: head!.hash } });
    });

    it('links each receipt to the one before it: hash = sha256(prev_hash ‖ its canonical text)', async () => {
      const first = await linkOf(1);
      const second = await linkOf(2);
      expect(first.prev_hash).toBe(GENESIS.hash);
      expect(second.prev_hash).toBe(first.hash);
      expect(second.hash).toBe(linkHash(first.hash, canonicalReceiptText((await db.store.receipts.get('r2'))!)));
      expect(second.body).toBe(canonicalReceiptText((await db.store.receipts.get('r2'))!));
    });
  });

  describe('when a row was tampered with', () => {
    it.each([
      ['an edited output', 4, 'hash_mismatch', async () => db.backend.sql("UPDATE receipts SET body = replace(body, 'hello 4', 'HELLO 4') WHERE seq = 4")],
      ['a deleted receipt', 6, 'missing', async () => db.backend.sql('DELETE FROM receipts WHERE seq = 6')],
      ['two swapped receipts', 3, 'prev_hash_mismatch', async () => {
        await db.backend.sql('UPDATE receipts SET seq = -1 WHERE seq = 3');
        await db.backend.sql('UPDATE receipts SET seq = 3 WHERE seq = 4');
        await db.backend.sql('UPDATE receipts SET seq = 4 WHERE seq = -1');
      }],
      ['two swapped texts', 7, 'hash_mismatch', async () => {
        const [seven, eight] = [await linkOf(7), await linkOf(8)];
        await db.backend.sql('UPDATE receipts SET body = ? WHERE seq = 7', [eight.body]);
        await db.backend.sql('UPDATE receipts SET body = ? WHERE seq = 8', [seven.body]);
      }],
      ['a forged receipt inserted with a valid link of its own', 6, 'prev_hash_mismatch', async () => {
        for (let seq = 10; seq >= 5; seq--) await db.backend.sql('UPDATE receipts SET seq = ? WHERE seq = ?', [seq + 1, seq]);
        const prev = (await linkOf(4)).hash;
        const body = canonicalReceiptText(makeReceipt({ id: 'forged', output: 'nothing to see\n' }));
        await db.backend.sql('INSERT INTO receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash) VALUES (5, ?, ?, ?, 0, ?, ?, ?)', ['forged', 'shell-exec', kind.name === 'SQLite' ? 1 : true, body, prev, linkHash(prev, body)]);
      }],
      ['the newest receipt deleted', 10, 'missing', async () => db.backend.sql('DELETE FROM receipts WHERE seq = 10')],
      ['a forged receipt appended past the head', 11, 'head_mismatch', async () => {
        const prev = (await linkOf(10)).hash;
        const body = canonicalReceiptText(makeReceipt({ id: 'forged' }));
        await db.backend.sql('INSERT INTO receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash) VALUES (11, ?, ?, ?, 0, ?, ?, ?)', ['forged', 'shell-exec', kind.name === 'SQLite' ? 1 : true, body, prev, linkHash(prev, body)]);
      }],
    ] as const)('names the first broken seq after %s', async (_case, seq, reason, tamper) => {
      await tamper();
      const report = await db.store.receipts.verify();
      expect(report).toMatchObject({ ok: false, broken: { seq, reason, message: expect.stringContaining(`seq ${seq}`) } });
    });
  });

  describe('when calls save receipts while verify runs', () => {
    it('verifies one consistent snapshot and reports no break', async () => {
      const saving = Promise.all(Array.from({ length: 300 }, () => db.store.receipts.save(makeReceipt())));
      const [report] = await Promise.all([db.store.receipts.verify(), saving]);
      expect(report.ok).toBe(true);
      expect((await db.store.receipts.verify()).checked).toBe(310);
    });
  });
});

describe('canonicalReceiptText', () => {
  const receipts = fc.record({
    output: fc.string({ unit: 'binary' }),
    error: fc.option(fc.string({ unit: 'binary' }), { nil: null }),
    params: fc.dictionary(fc.string(), fc.jsonValue()),
    duration_ms: fc.nat(),
    extra: fc.dictionary(fc.string({ minLength: 1 }).filter((key) => !['ok', 'tool', 'method', 'output', 'error', 'duration_ms'].includes(key)), fc.jsonValue(), { maxKeys: 3 }),
  });

  it('gives the same text for the same receipt whatever order its keys were built in, the six fields first', () => {
    fc.assert(
      fc.property(receipts, ({ extra, ...fields }) => {
        const receipt = { ...extra, ...makeReceipt(fields) } as Receipt;
        const reversed = Object.fromEntries(Object.entries(receipt).reverse()) as unknown as Receipt;
        const text = canonicalReceiptText(receipt);
        expect(canonicalReceiptText(reversed)).toBe(text);
        expect(text.startsWith(`{"ok":true,"tool":"shell-exec","method":"exec","output":${JSON.stringify(fields.output)},"error":`)).toBe(true);
      }),
      { numRuns: runs(200) },
    );
  });

  it('reads back to a receipt whose canonical text is the same text (what verify hashes is what get returns)', () => {
    fc.assert(
      fc.property(receipts, (fields) => {
        const text = canonicalReceiptText(makeReceipt(fields));
        expect(canonicalReceiptText(JSON.parse(text) as Receipt)).toBe(text);
      }),
      { numRuns: runs(200) },
    );
  });
});
