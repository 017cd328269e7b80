import type { Receipt } from '../core/index.js';
import type { ReceiptQuery } from './store.js';

/** A receipt on its way into the chain: its indexed start time and its canonical text. */
export interface PendingReceipt {
  receipt: Receipt;
  started: number;
  text: string;
}

const DEFAULT_PAGE = 50;
// a bound on memory per call: the HTTP API's largest page (1,000), plus the one receipt it asks for to see if a page follows
const LARGEST_PAGE = 1001;

/** The receipt's start in ms since the epoch; throws if it has none (a programming error, caught before it is stored). */
export function startedMs(receipt: Receipt): number {
  const started = Date.parse(receipt.started_at);
  if (Number.isNaN(started)) throw new TypeError(`receipt ${receipt.id} has no valid started_at`);
  return started;
}

/** A `since` filter in ms; throws naming the format it needs. */
export function sinceMs(since: string | Date): number {
  const ms = (since instanceof Date ? since : new Date(since)).getTime();
  if (Number.isNaN(ms)) throw new TypeError(`'since' must be an ISO date or time, got '${String(since)}'`);
  return ms;
}

/** The page a query asks for, bounded. */
export function pageOf(query: ReceiptQuery): { limit: number; offset: number } {
  return {
    limit: Math.min(LARGEST_PAGE, Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE))),
    offset: Math.max(0, Math.floor(query.offset ?? 0)),
  };
}

/** How many rows a text search may read, when the query bounds it (a positive whole number), else undefined. */
export function searchRowsOf(query: ReceiptQuery): number | undefined {
  return query.searchRows === undefined ? undefined : Math.max(1, Math.floor(query.searchRows));
}

/** The refusal of a second receipt with an id already stored. */
export function duplicateReceipt(id: string): Error {
  return Object.assign(new Error(`a receipt with id '${id}' is already stored (receipt ids are UNIQUE)`), { code: 'DUPLICATE_RECEIPT' });
}

/**
 * How many of a page's rows (their stored sizes, newest first, one more than `limit` when more follow) fit in
 * `maxBytes`: the first always (a page never comes back empty while receipts remain), then each while the total stays
 * within it. `endedEarly`: the page stopped before `limit` because of the bytes.
 */
export function fitInBytes(sizes: number[], limit: number, maxBytes: number): { taken: number; more: boolean; endedEarly: boolean } {
  let taken = 0;
  let total = 0;
  while (taken < Math.min(limit, sizes.length) && (taken === 0 || total + sizes[taken]! <= maxBytes)) total += sizes[taken++]!;
  return { taken, more: sizes.length > taken, endedEarly: taken < limit && sizes.length > taken };
}
