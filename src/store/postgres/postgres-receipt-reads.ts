import type { Receipt } from '../../core/index.js';
import { receiptMatches, storedCodeNeedle, storedTextNeedle, type MatchQuery } from '../receipt-match.js';
import { summaryOfReceipt, type ReceiptSummary } from '../receipt-summary.js';
import type { Database } from './database.js';

// the stored texts of one round trip: a row or more, at most this many bytes unless one row holds more on its own
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Whether a text can be a PostgreSQL parameter: its text holds no U+0000 (the driver's query fails on one). */
export const postgresText = (value: string): boolean => !value.includes('\u0000');

/**
 * The conditions, each starting with AND, a stored text must meet to hold a receipt whose output or error holds
 * `text` and whose code is `code`: never a json function (PostgreSQL's refuse a stored text with `\u0000` or a lone
 * surrogate's escape anywhere in it), only substrings of the text as stored, ASCII letters folded as SQLite's lower()
 * folds them (`COLLATE "C"`, whatever the database's locale). A superset of the matches: `receiptMatches` decides.
 */
export function mayMatch(sql: Database, query: { text?: string; code?: string }) {
  const text = query.text === undefined ? undefined : storedTextNeedle(query.text);
  return sql`
    ${query.code === undefined ? sql`` : sql`AND strpos(body, ${storedCodeNeedle(query.code)}) > 0`}
    ${text === undefined ? sql`` : sql`AND strpos(lower(body COLLATE "C"), ${text}) > 0`}`;
}

// a lone surrogate's escape and U+0000's: the json functions refuse them, so each is made a space before they read a
// code (a code never holds a backslash, so no code reads otherwise; the text keeps its form as JSON either way)
const REFUSED_ESCAPE = String.raw`\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})`;

/** The condition, starting with AND, that a stored receipt's code is `code`: exact, whatever else its text holds. */
export function codeIs(sql: Database, code: string) {
  return sql`AND strpos(body, ${storedCodeNeedle(code)}) > 0
    AND (CASE WHEN body ~ ${REFUSED_ESCAPE} THEN regexp_replace(body, ${REFUSED_ESCAPE}, ${String.raw`\\u0020`}, 'g') ELSE body END)::json ->> 'code' = ${code}`;
}

/** The stored texts of `rows`, in their order, a chunk of at most CHUNK_BYTES (or one row) a round trip; a row gone meanwhile (pruned) is passed over. */
async function* storedTexts(sql: Database, rows: MatchQuery['rows']): AsyncGenerator<string> {
  for (let start = 0; start < rows.length; ) {
    let end = start + 1;
    for (let bytes = rows[start]!.bytes; end < rows.length && bytes + rows[end]!.bytes <= CHUNK_BYTES; end += 1) bytes += rows[end]!.bytes;
    const seqs = rows.slice(start, end).map((row) => row.seq);
    const found = await sql<Array<{ seq: number; body: string }>>`SELECT seq, body FROM receipts WHERE seq = ANY(${seqs}::bigint[])`;
    const bySeq = new Map(found.map((row) => [Number(row.seq), row.body]));
    for (const seq of seqs) {
      const body = bySeq.get(seq);
      if (body !== undefined) yield body;
    }
    start = end;
  }
}

/**
 * The receipts of `query.rows` that match its text and code, parsed here, from the `skip`th match on, at most `take`
 * of them, each made `keep(receipt)` as it is found (a summary keeps none of a receipt's large strings). Reading stops
 * at the last one wanted.
 */
export async function readMatches<T>(sql: Database, query: MatchQuery, keep: (receipt: Receipt) => T): Promise<T[]> {
  const kept: T[] = [];
  let passed = 0;
  if (query.take <= 0) return kept;
  for await (const body of storedTexts(sql, query.rows)) {
    const receipt = JSON.parse(body) as Receipt;
    if (!receiptMatches(receipt, query)) continue;
    if (passed < query.skip) passed += 1;
    else if (kept.push(keep(receipt)) >= query.take) break;
  }
  return kept;
}

/** `readMatches`, each receipt as a list's summary. */
export function summariseMatches(sql: Database, query: MatchQuery): Promise<ReceiptSummary[]> {
  return readMatches(sql, query, summaryOfReceipt);
}
