import type { Receipt } from '../core/index.js';

/**
 * Stored rows to be read in order (newest first) and tested here: where the database cannot test a receipt's text
 * itself (PostgreSQL's json functions refuse a stored text holding `\u0000` or a lone surrogate's escape), it picks
 * the rows that may match, and the parsed receipts decide.
 */
export interface MatchQuery {
  /** the rows, in the order a list shows them, each with its stored text's size in bytes */
  rows: Array<{ seq: number; bytes: number }>;
  /** only receipts whose output or error holds this text (ASCII letters in either case) */
  text?: string;
  /** only receipts with this code */
  code?: string;
  /** the first this many receipts that match are passed over */
  skip: number;
  /** at most this many receipts that match are kept */
  take: number;
}

// SQLite's lower(), which its search uses, folds ASCII letters alone: the same here, so both stores find the same calls
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Whether `receipt` meets `query`'s text and code, as SQLite's search judges them (instr of lower() in output or error). */
export function receiptMatches(receipt: Receipt, query: Pick<MatchQuery, 'text' | 'code'>): boolean {
  if (query.code !== undefined && receipt.code !== query.code) return false;
  if (query.text === undefined || query.text === '') return true;
  const wanted = asciiLower(query.text);
  return [receipt.output, receipt.error].some((value) => typeof value === 'string' && asciiLower(value).includes(wanted));
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * What a receipt's stored text must hold, ASCII letters lowered, when its output or error holds `text`: the text as
 * JSON writes it inside a string (each character escaped on its own, so a match's escape is a substring of the
 * stored text's). Undefined for a text with a surrogate, whose escape depends on its neighbours: no such filter.
 */
export function storedTextNeedle(text: string): string | undefined {
  if (text === '' || SURROGATE.test(text)) return undefined;
  return asciiLower(JSON.stringify(text).slice(1, -1));
}

/** What a receipt's canonical stored text holds when its code is `code` (its top-level member, as the chain's text writes it). */
export function storedCodeNeedle(code: string): string {
  return `"code":${JSON.stringify(code)}`;
}
