import type { Diagnostic, Receipt, ToolIndex } from '../core/index.js';
import type { EventHub } from './event-hub.js';

/** How much of a failed call's raw error an event carries; the receipt (`GET /v1/receipts/:id`) has all of it. */
const ERROR_HEAD_CHARS = 2000;

/**
 * How much of a request's params an `approval.requested` event carries, in characters of their JSON: an agent sends up
 * to `max_body_bytes` (1 MiB) of params, and every event is kept in the backlog, read by each page of history and
 * queued for each webhook target. The request itself (`GET /v1/approvals/:id`, the console's page) keeps them whole.
 */
export const EVENT_PARAMS_CHARS = 4096;

/**
 * The params as an event carries them: as they are when their JSON is at most `EVENT_PARAMS_CHARS` characters; else
 * that JSON's head, as a string ending in the cut (`[… N chars cut of M …]`, as a rejected call's record keeps them),
 * with `params_chars` the whole JSON's length.
 */
export function eventParams(params: unknown): { params: unknown; params_chars?: number } {
  const text = JSON.stringify(params) ?? 'null';
  if (text.length <= EVENT_PARAMS_CHARS) return { params };
  // never half of a surrogate pair
  const end = /[\uD800-\uDBFF]/.test(text[EVENT_PARAMS_CHARS - 1]!) ? EVENT_PARAMS_CHARS - 1 : EVENT_PARAMS_CHARS;
  return { params: `${text.slice(0, end)}[… ${text.length - end} chars cut of ${text.length} …]`, params_chars: text.length };
}

/** What a `receipt.stored` event says: enough to list and highlight the call; the receipt itself is one request away. */
export function receiptSummary(receipt: Receipt): Record<string, unknown> {
  const error = receipt.error === null ? null : receipt.error.length > ERROR_HEAD_CHARS ? receipt.error.slice(0, ERROR_HEAD_CHARS) : receipt.error;
  const extra = receipt as unknown as Record<string, unknown>;
  return {
    receipt: receipt.id, ok: receipt.ok, tool: receipt.tool, method: receipt.method, executor: receipt.executor,
    code: receipt.code, exit_code: receipt.exit_code, duration_ms: receipt.duration_ms,
    started_at: receipt.started_at, finished_at: receipt.finished_at, commit: receipt.commit,
    error, ...(error !== null && error.length < receipt.error!.length ? { error_chars: receipt.error!.length } : {}),
    output_bytes: receipt.output_bytes, cut_bytes: receipt.cut_bytes, confirmation: receipt.confirmation,
    // who called and in which session, once principals record them on receipts
    ...(extra.caller !== undefined ? { caller: extra.caller } : {}),
    ...(extra.session !== undefined ? { session: extra.session } : {}),
  };
}

/** How many files and problems a `definitions.broken` event names at most; the rest are counted (the full list is `GET /v1/tools`' `errors`). */
export const BROKEN_EVENT_MOST = 100;

/**
 * What a `definitions.broken` event says: the commit, the files, and each problem at its file:line:col — the first
 * BROKEN_EVENT_MOST of each, with how many there are. Every problem of a registry in one event grew with it: 15,000
 * broken definitions made an event past 8 MiB, which `hldp tail` stops at, every webhook target received and the
 * backlog held (review Z14, Z14-2: 17.5 MB at 40,000).
 */
export function brokenDefinitions(index: ToolIndex): Record<string, unknown> {
  const files = [...new Set(index.errors.map((error) => error.file))];
  const errors = index.errors.slice(0, BROKEN_EVENT_MOST).map((error: Diagnostic) => ({ file: error.file, line: error.line, column: error.column, code: error.code, message: error.message }));
  return { commit: index.commit, files: files.slice(0, BROKEN_EVENT_MOST), errors, files_total: files.length, errors_total: index.errors.length };
}

/** The `definitions.broken` event for an index served as it is (at start). */
export function announceBroken(hub: EventHub, index: ToolIndex): void {
  if (index.errors.length > 0) hub.publish('definitions.broken', brokenDefinitions(index));
}
