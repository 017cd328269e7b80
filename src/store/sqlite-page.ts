import type { Database } from 'better-sqlite3';
import { fitInBytes } from './receipt-rows.js';
import type { ReceiptTextPage } from './store.js';

/** A page of receipts to read from SQLite: its WHERE clause (made by the store from fixed pieces) and its bounds. */
export interface SqlitePageQuery {
  filters: string;
  values: Array<string | number>;
  limit: number;
  offset: number;
  maxBytes: number;
}

/**
 * One snapshot: the sizes of the page's rows first (octet_length reads a row's length, not its text), then the text
 * of only the rows that fit in `maxBytes`. Run by the store's connection, or by the writer thread's for a page with
 * much text.
 */
export function readPageTexts(database: Database, query: SqlitePageQuery): ReceiptTextPage {
  const sizes = database.prepare<Array<string | number>, { seq: number; bytes: number }>(
    `SELECT seq, octet_length(body) AS bytes FROM receipts ${query.filters} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`,
  );
  const bodies = database.prepare<[string], { body: string }>('SELECT body FROM receipts WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY started_ms DESC, seq DESC');
  return database.transaction(() => {
    const rows = sizes.all(...query.values, query.limit + 1, query.offset);
    const { taken, more, endedEarly } = fitInBytes(rows.map((row) => row.bytes), query.limit, query.maxBytes);
    const seqs = rows.slice(0, taken).map((row) => row.seq);
    const texts = seqs.length === 0 ? [] : bodies.all(JSON.stringify(seqs)).map((row) => row.body);
    return { texts, more, endedEarly };
  })();
}

/** How many bytes of stored text the page `query` asks for would hold (its rows' sizes only, not their text). */
export function pageBytes(database: Database, query: SqlitePageQuery): number {
  const sizes = database.prepare<Array<string | number>, { bytes: number }>(
    `SELECT octet_length(body) AS bytes FROM receipts ${query.filters} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`,
  );
  const rows = sizes.all(...query.values, query.limit, query.offset).map((row) => row.bytes);
  const { taken } = fitInBytes(rows, query.limit, query.maxBytes);
  return rows.slice(0, taken).reduce((sum, bytes) => sum + bytes, 0);
}
