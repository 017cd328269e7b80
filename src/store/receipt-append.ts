import type { Database } from 'better-sqlite3';
import type { BatchOutcome } from './batch-writer.js';
import { chainAfter, GENESIS } from './receipt-chain.js';
import { duplicateReceipt, type PendingReceipt } from './receipt-rows.js';
import type { ChainLink } from './store.js';

/**
 * Appends batches of receipts to the chain on one connection: one IMMEDIATE transaction per batch, so other
 * connections sharing the file (another process, or this one's receipt writer thread) wait for it and the chain has
 * one writer at a time. A receipt whose id is stored already is refused alone.
 */
export function receiptAppender(database: Database): (batch: PendingReceipt[]) => BatchOutcome {
  const insert = database.prepare('INSERT INTO receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash, caller, session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const exists = database.prepare<[string], { id: string }>('SELECT id FROM receipts WHERE id = ?');
  const head = database.prepare<[], ChainLink>('SELECT seq, hash FROM receipt_chain WHERE id = 1');
  const setHead = database.prepare<[number, string]>('UPDATE receipt_chain SET seq = ?, hash = ? WHERE id = 1');
  const append = database.transaction((batch: PendingReceipt[]): BatchOutcome => {
    const seen = new Set<string>();
    const outcome: BatchOutcome = batch.map(({ receipt }) => {
      const duplicate = seen.has(receipt.id) || exists.get(receipt.id) !== undefined;
      seen.add(receipt.id);
      return duplicate ? duplicateReceipt(receipt.id) : undefined;
    });
    const accepted = batch.filter((_item, index) => !outcome[index]);
    const linked = chainAfter(head.get() ?? GENESIS, accepted.map((item) => item.text));
    linked.rows.forEach((row, index) => {
      const { receipt, started } = accepted[index]!;
      insert.run(row.seq, receipt.id, receipt.tool, receipt.ok ? 1 : 0, started, row.body, row.prev_hash, row.hash, receipt.caller ?? null, receipt.session ?? null);
    });
    setHead.run(linked.head.seq, linked.head.hash);
    return outcome;
  });
  return (batch) => append.immediate(batch);
}
