import type { Receipt } from '../../core/index.js';
import type { BatchOutcome } from '../batch-writer.js';
import { duplicateReceipt, type PendingReceipt } from '../receipt-rows.js';
import type { Database } from './database.js';

/**
 * Appends a batch of receipts to the chain in one statement: `hldp_append_receipts` (migration 11) takes the chain
 * lock, reads the head, links and inserts the batch and moves the head, and the statement's commit lets the lock go —
 * all on the server, within the one round trip. A batch linked here between round trips held the lock across them (and
 * across this process's event loop): an instance stopped or stalled mid-batch held every other instance's receipts
 * (review L, L7). The store runs it on its own pool, the receipt writer thread on its connection (a huge receipt).
 */
export async function appendPostgresReceipts(sql: Database, all: PendingReceipt[]): Promise<BatchOutcome> {
  // PostgreSQL's text holds no U+0000, and one in a column refused the whole statement: every other caller's receipt
  // of the batch with it (review O, O8). Such a receipt is refused alone (its body is JSON: U+0000 is escaped there)
  const unstorable = all.map(({ receipt }) => nulColumn(receipt));
  const batch = all.filter((_, index) => unstorable[index] === undefined);
  const outcome = batch.length === 0 ? [] : await appendStorable(sql, batch);
  let next = 0;
  return all.map(({ receipt }, index) => {
    const column = unstorable[index];
    return column === undefined ? outcome[next++] : new Error(`receipt ${JSON.stringify(receipt.id)} was not stored: its ${column} holds U+0000, which PostgreSQL's text cannot`);
  });
}

async function appendStorable(sql: Database, batch: PendingReceipt[]): Promise<BatchOutcome> {
  // each column as one array parameter (sql.array: a plain array's type is guessed from its first element)
  const column = (pick: (item: PendingReceipt) => string | number | boolean | null) => sql.array(batch.map(pick) as never[]);
  const refused = await sql<Array<{ refused: number }>>`
    SELECT refused FROM hldp_append_receipts(
      ${column(({ receipt }) => receipt.id)}::text[], ${column(({ receipt }) => receipt.tool)}::text[], ${column(({ receipt }) => receipt.ok)}::boolean[],
      ${column(({ started }) => started)}::bigint[], ${texts(sql, batch)},
      ${column(({ receipt }) => receipt.caller ?? null)}::text[], ${column(({ receipt }) => receipt.session ?? null)}::text[]) AS refused`;
  const duplicates = new Set(refused.map((row) => row.refused - 1));
  return batch.map(({ receipt }, index) => (duplicates.has(index) ? duplicateReceipt(receipt.id) : undefined));
}

// a text longer than this goes as a parameter of its own rather than an element of the array parameter
const LONG_TEXT = 64 * 1024;

/**
 * The batch's texts as a text[] expression: one array parameter, or, when one is long, `ARRAY[$n, …]` of one
 * parameter each. The driver escapes an array's elements with two global regex replaces, which for a 96 MB receipt of
 * NULs (`\u0000`, a backslash every 6 characters) cost ~11 s of CPU in the writer thread, most of it garbage
 * collection; a parameter of its own is written as it is.
 */
function texts(sql: Database, batch: PendingReceipt[]) {
  if (!batch.some(({ text }) => text.length > LONG_TEXT)) return sql`${sql.array(batch.map(({ text }) => text))}::text[]`;
  const [first, ...rest] = batch.map(({ text }) => sql`${text}::text`);
  return sql`ARRAY[${rest.reduce((list, text) => sql`${list}, ${text}`, first!)}]::text[]`;
}

/** The column of `receipt` stored as text beside its body that holds U+0000, or undefined. */
function nulColumn(receipt: Receipt): string | undefined {
  const columns = { id: receipt.id, tool: receipt.tool, caller: receipt.caller, session: receipt.session };
  return Object.entries(columns).find(([, value]) => typeof value === 'string' && value.includes('\u0000'))?.[0];
}
