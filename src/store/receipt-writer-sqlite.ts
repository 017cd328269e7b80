import BetterSqlite3 from 'better-sqlite3';
import { receiptAppender } from './receipt-append.js';
import type { WriterConnection } from './receipt-writer-thread.js';
import { readPageTexts } from './sqlite-page.js';
import { readSummaryPage, searchSummaries } from './sqlite-summaries.js';

/**
 * The receipt writer thread's connection to the store's SQLite file: the same durability and patience as the store's
 * own connection (sqlite-store.ts); the file is in WAL mode already.
 */
export function sqliteWriter(path: string): WriterConnection {
  const database = new BetterSqlite3(path, { fileMustExist: true });
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  const append = receiptAppender(database);
  const read = database.prepare<[string], { body: Buffer }>('SELECT CAST(body AS BLOB) AS body FROM receipts WHERE id = ?');
  const text = database.prepare<[string], { body: string }>('SELECT body FROM receipts WHERE id = ?');
  return {
    append,
    read: (id) => {
      const row = read.get(id);
      return row === undefined ? null : new Uint8Array(row.body.buffer, row.body.byteOffset, row.body.byteLength);
    },
    text: (id) => text.get(id)?.body ?? null,
    page: (query) => readPageTexts(database, query),
    summaries: (query) => readSummaryPage(database, query),
    search: (query) => searchSummaries(database, query),
    close: () => void database.close(),
  };
}
