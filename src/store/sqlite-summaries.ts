import type { Database } from 'better-sqlite3';
import { fitInBytes } from './receipt-rows.js';
import { ERROR_HEAD_CHARACTERS, summaryOf, type ReceiptSummary, type ReceiptSummaryPage, type SummaryRow } from './receipt-summary.js';
import type { SqlitePageQuery } from './sqlite-page.js';

// the fields a list shows, read by SQLite out of the stored text (one parse of it per row: SQLite keeps the last few
// parsed per statement); the error's start only, its leading blank lines dropped so that its first line is in it
const SUMMARY_COLUMNS = `id, tool, ok, caller, session, body ->> '$.code' AS code, body ->> '$.exit_code' AS exit_code,
  body ->> '$.started_at' AS started_at, body ->> '$.duration_ms' AS duration_ms,
  substr(ltrim(body ->> '$.error', ' ' || char(9, 10, 13)), 1, ${ERROR_HEAD_CHARACTERS}) AS error_head`;

/** A bounded search of SQLite's receipts: the column filters (made by the store from fixed pieces), what is looked for, and its bounds. */
export interface SqliteSearchQuery {
  /** the WHERE clause of the column filters (never the code: it is read from the body) */
  filters: string;
  values: Array<string | number>;
  code?: string;
  /** case-insensitive text in the output or the error */
  text?: string;
  /** at most this many of the newest rows that meet the filters are searched, and of them at most `searchBytes` of stored text */
  searchRows: number;
  searchBytes: number;
  limit: number;
  offset: number;
}

/**
 * One snapshot: the sizes of the page's rows first, then the summaries of only the rows that fit in `maxBytes`, as
 * readPageTexts bounds a page of texts. Run by the store's connection, or by the writer thread's for a page with much
 * text (SQLite's parse of each row's text is the page's cost).
 */
export function readSummaryPage(database: Database, query: SqlitePageQuery): ReceiptSummaryPage {
  const sizes = database.prepare<Array<string | number>, { seq: number; bytes: number }>(
    `SELECT seq, octet_length(body) AS bytes FROM receipts ${query.filters} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`,
  );
  const rows = database.prepare<[string], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM receipts WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY started_ms DESC, seq DESC`);
  return database.transaction(() => {
    const found = sizes.all(...query.values, query.limit + 1, query.offset);
    const { taken, more, endedEarly } = fitInBytes(found.map((row) => row.bytes), query.limit, query.maxBytes);
    const seqs = found.slice(0, taken).map((row) => row.seq);
    return { summaries: seqs.length === 0 ? [] : rows.all(JSON.stringify(seqs)).map(summaryOf), more, endedEarly };
  })();
}

/** The newest rows a search may read: their seqs and how many bytes of stored text they hold (sizes only, no text read). */
function candidates(database: Database, query: SqliteSearchQuery): { seqs: number[]; bytes: number } {
  const sizes = database.prepare<Array<string | number>, { seq: number; bytes: number }>(
    `SELECT seq, octet_length(body) AS bytes FROM receipts ${query.filters} ORDER BY started_ms DESC, seq DESC LIMIT ?`,
  );
  const rows = sizes.all(...query.values, query.searchRows);
  const { taken } = fitInBytes(rows.map((row) => row.bytes), rows.length, query.searchBytes);
  const kept = rows.slice(0, taken);
  return { seqs: kept.map((row) => row.seq), bytes: kept.reduce((sum, row) => sum + row.bytes, 0) };
}

/** How many bytes of stored text the search `query` would read (sizes only). */
export function searchBytes(database: Database, query: SqliteSearchQuery): number {
  return candidates(database, query).bytes;
}

/**
 * A bounded search in one snapshot: the newest rows that meet the column filters (at most searchRows, and searchBytes
 * of stored text), then the text and the code looked for in those alone (review J F3); the summaries of those found.
 */
export function searchSummaries(database: Database, query: SqliteSearchQuery): ReceiptSummary[] {
  const search = query.text ? "AND (instr(lower(coalesce(body ->> '$.output', '')), lower(?)) > 0 OR instr(lower(coalesce(body ->> '$.error', '')), lower(?)) > 0)" : '';
  const code = query.code === undefined ? '' : "AND body ->> '$.code' = ?";
  const found = database.prepare<Array<string | number>, SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM receipts WHERE seq IN (SELECT value FROM json_each(?)) ${code} ${search} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`,
  );
  return database.transaction(() => {
    const { seqs } = candidates(database, query);
    const matching = [...(query.code === undefined ? [] : [query.code]), ...(query.text ? [query.text, query.text] : [])];
    return found.all(JSON.stringify(seqs), ...matching, query.limit, query.offset).map(summaryOf);
  })();
}
