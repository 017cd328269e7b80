import type { Receipt } from '../core/index.js';

/** Which receipts to read: newest first, filtered, one page at a time. */
export interface ReceiptQuery {
  /** only successful (`ok`) or only failed calls */
  status?: 'ok' | 'failed';
  tool?: string;
  /** only calls started at or after this time (ISO text or Date) */
  since?: string | Date;
  /** page size; default 50, at most 1000 */
  limit?: number;
  offset?: number;
}

/** Where receipts are kept: every accepted call's one receipt, saved before it is returned. */
export interface ReceiptStore {
  /** saves a new receipt; a second receipt with the same id is refused (throws) */
  save(receipt: Receipt): Promise<void>;
  get(id: string): Promise<Receipt | undefined>;
  list(query?: ReceiptQuery): Promise<Receipt[]>;
}

/** A call waiting for confirmation: bound to its tool, the exact params and the index commit. */
export interface PendingConfirmation {
  /** the single-use token; only its hash is stored */
  token: string;
  tool: string;
  /** the params as they will run (canonical form) */
  params: Record<string, unknown>;
  /** SHA-256 of the canonical params */
  params_hash: string;
  commit: string;
  created_at: string;
  expires_at: string;
}

/** What a confirmation is for. */
export interface ConfirmationRequest {
  tool: string;
  params: Record<string, unknown>;
  commit: string;
  /** default: the store's (10 minutes) */
  ttlMs?: number;
}

/** What a token must match when it is used. */
export interface ConfirmationBinding {
  tool: string;
  params: Record<string, unknown>;
  commit: string;
}

/** Why a token cannot be used. */
export type ConfirmationRefusal = 'unknown' | 'used' | 'expired' | 'mismatch';

/** A usable confirmation, or why there is none, with a message that says what to do. */
export type ConfirmationLookup =
  | { ok: true; confirmation: PendingConfirmation }
  | { ok: false; reason: ConfirmationRefusal; message: string };

/** Pending confirmations: single use, expiring, persisted. */
export interface ConfirmationStore {
  /** a new token for this exact call */
  create(request: ConfirmationRequest): Promise<PendingConfirmation>;
  /** the pending call a token stands for, without using it up */
  peek(token: string): Promise<ConfirmationLookup>;
  /** uses the token up, atomically, if it is pending, unexpired and bound to exactly this call; a mismatch leaves it pending */
  consume(token: string, binding: ConfirmationBinding): Promise<ConfirmationLookup>;
  /** deletes expired and used tokens; returns how many */
  purge(): Promise<number>;
}

/** Everything the gateway must share between instances: one interface, SQLite by default, PostgreSQL to scale out. */
export interface Store {
  receipts: ReceiptStore;
  confirmations: ConfirmationStore;
  close(): Promise<void>;
}
