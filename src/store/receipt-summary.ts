import type { Receipt } from '../core/index.js';

/**
 * What a list of calls shows of one receipt: a few small fields the store reads out of the stored text (SQLite's
 * `->>`, PostgreSQL's `->>`), never the whole receipt parsed where a list is made: a page of receipts of many MB each
 * parsed on the gateway's event loop held every other request.
 */
export interface ReceiptSummary {
  id: string;
  tool: string;
  ok: boolean;
  code: string | null;
  exit_code: number | null;
  started_at: string | null;
  duration_ms: number | null;
  caller: string | null;
  session: string | null;
  /** the error's first `ERROR_HEAD_CHARACTERS` characters, leading blank lines dropped (a list shows its first line); null when none */
  error_head: string | null;
}

/** A page of summaries, bounded in rows and in the bytes of stored text read for it. */
export interface ReceiptSummaryPage {
  summaries: ReceiptSummary[];
  more: boolean;
  endedEarly: boolean;
}

/** How many characters of a receipt's error a summary keeps: a list shows its first line, cut to far fewer. */
export const ERROR_HEAD_CHARACTERS = 4096;

/** A summary's row as a store's query gives it (numbers may come as text, `ok` as 0/1). */
export interface SummaryRow {
  id: string;
  tool: string;
  ok: number | boolean;
  caller: string | null;
  session: string | null;
  code: string | null;
  exit_code: number | string | null;
  started_at: string | null;
  duration_ms: number | string | null;
  error_head: string | null;
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

/** A row of a summary query as a summary. */
export function summaryOf(row: SummaryRow): ReceiptSummary {
  return {
    id: row.id, tool: row.tool, ok: row.ok === true || row.ok === 1, code: row.code, exit_code: numberOrNull(row.exit_code),
    started_at: row.started_at, duration_ms: numberOrNull(row.duration_ms), caller: row.caller, session: row.session, error_head: row.error_head,
  };
}

/** A parsed receipt as a summary (where the store cannot read the fields out of the stored text). */
export function summaryOfReceipt(receipt: Receipt): ReceiptSummary {
  const error = receipt.error === null ? null : receipt.error.replace(/^[ \t\r\n]+/, '').slice(0, ERROR_HEAD_CHARACTERS);
  return {
    id: receipt.id, tool: receipt.tool, ok: receipt.ok, code: receipt.code, exit_code: receipt.exit_code, started_at: receipt.started_at,
    duration_ms: receipt.duration_ms, caller: receipt.caller ?? null, session: receipt.session ?? null, error_head: error,
  };
}

/** One receipt for a view: each string longer than the excerpt's bound cut to its start, and what was cut said. */
export interface ReceiptExcerpt {
  receipt: Receipt;
  /** each cut string's path (`output`, `params.content`, `params.files[0]`) and its whole length in UTF-8 bytes */
  cut: Record<string, number>;
}

/** The text fields of a receipt whose whole raw bytes may be asked for. */
export const RAW_FIELDS = ['output', 'error', 'stderr'] as const;

/** One of `RAW_FIELDS`. */
export type RawField = (typeof RAW_FIELDS)[number];

/** Whether `value` names one of `RAW_FIELDS`. */
export function isRawField(value: string): value is RawField {
  return (RAW_FIELDS as readonly string[]).includes(value);
}

/** The first `chars` UTF-16 units of `text`, never ending in half of a surrogate pair. */
function head(text: string, chars: number): string {
  const code = text.charCodeAt(chars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars);
}

/**
 * A receipt's stored text parsed, each string longer than `chars` cut to its first `chars` (at any depth), named in
 * `cut`. Run where the parse costs no one's wait: in the store's writer thread for a large receipt.
 */
export function excerptOf(text: string, chars: number): ReceiptExcerpt {
  const cut: Record<string, number> = {};
  const walk = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      if (value.length <= chars) return value;
      cut[path] = Buffer.byteLength(value, 'utf8');
      return head(value, chars);
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${path}[${index}]`));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, path === '' ? key : `${path}.${key}`)]));
    return value;
  };
  return { receipt: walk(JSON.parse(text), '') as Receipt, cut };
}

/** A text field of a receipt's stored text, whole, as UTF-8 bytes of their own (to be handed over); null when it is not text. */
export function rawFieldOf(text: string, field: RawField): Uint8Array | null {
  const value = (JSON.parse(text) as Record<string, unknown>)[field];
  return typeof value === 'string' ? new TextEncoder().encode(value) : null;
}

