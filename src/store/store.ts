import type { Receipt, UsageEvent } from '../core/index.js';
import type { AgentSessionStore } from './agent-sessions.js';

/** Which receipts to read: newest first, filtered, one page at a time. */
export interface ReceiptQuery {
  /** only successful (`ok`) or only failed calls */
  status?: 'ok' | 'failed';
  tool?: string;
  /** only calls started at or after this time (ISO text or Date) */
  since?: string | Date;
  /** only calls started at or before this time */
  until?: string | Date;
  /** only receipts with this `code` (NONZERO_EXIT, TIMEOUT, …) */
  code?: string;
  /** only calls made by this principal (the receipt's `caller`) */
  caller?: string;
  /** only calls made in this session (the receipt's `session`) */
  session?: string;
  /** only receipts whose output or error holds this text (case-insensitive for ASCII letters; a scan, bounded by the page) */
  text?: string;
  /** page size; default 50, at most 1000 */
  limit?: number;
  offset?: number;
}

/** Where receipts are kept: every accepted call's one receipt, saved before it is returned, as a link of one hash chain. */
export interface ReceiptStore {
  /** saves a new receipt at the head of the chain; a second receipt with the same id is refused (throws) */
  save(receipt: Receipt): Promise<void>;
  get(id: string): Promise<Receipt | undefined>;
  /** receipts whose id starts with `prefix`, newest first, at most `limit` (for `hldp receipts <prefix>`); optional for stores that cannot */
  findByPrefix?(prefix: string, limit: number): Promise<Receipt[]>;
  list(query?: ReceiptQuery): Promise<Receipt[]>;
  /** walks the chain from its checkpoint to its head in one consistent snapshot; names the first broken link */
  verify(): Promise<ChainReport>;
  /** deletes the oldest receipts the policy lets go, in small batches, moving the checkpoint with them */
  prune(policy: RetentionPolicy, options?: { signal?: AbortSignal }): Promise<PruneResult>;
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

/** A link of the receipt chain: `hash = sha256(prev_hash ‖ canonical receipt text)`. */
export interface ChainLink {
  seq: number;
  hash: string;
}

/** Why a link of the chain is broken. */
export type ChainBreak =
  /** the row's text no longer hashes to its `hash`: it was edited */
  | 'hash_mismatch'
  /** the row does not follow the one before it: rows were reordered, or one was inserted */
  | 'prev_hash_mismatch'
  /** a seq is missing: a row was deleted */
  | 'missing'
  /** rows beyond the recorded head, or the head's hash differs from the last row's: the end was cut or forged */
  | 'head_mismatch';

/** What `verify` found. */
export interface ChainReport {
  ok: boolean;
  /** receipts whose links were checked */
  checked: number;
  /** where the chain starts: genesis (seq 0) or the last retention checkpoint */
  checkpoint: ChainLink;
  /** the recorded head: the newest receipt's link */
  head: ChainLink;
  /** the first broken link, if any */
  broken?: { seq: number; reason: ChainBreak; message: string };
}

/** Which receipts may go: older than `days`, or beyond the newest `maxRows`; unset means no limit. */
export interface RetentionPolicy {
  days?: number;
  maxRows?: number;
}

/** What one pruning pass did. */
export interface PruneResult {
  deleted: number;
  /** the checkpoint after the pass (unchanged when nothing was deleted) */
  checkpoint: ChainLink;
}

/** The state an MCP Streamable HTTP session needs on any instance: the client's initialize request, and how the session was opened. */
export interface McpSessionRecord {
  id: string;
  /** the `params` of the client's `initialize` request */
  initialize: Record<string, unknown>;
  /** the options the session's server was made with (e.g. the toolsets of `/mcp?toolsets=`) */
  options: Record<string, unknown>;
  created_at: string;
}

/** MCP sessions that any gateway instance can serve. */
export interface McpSessionStore {
  create(record: { id: string; initialize: Record<string, unknown>; options?: Record<string, unknown> }): Promise<void>;
  get(id: string): Promise<McpSessionRecord | undefined>;
  delete(id: string): Promise<void>;
  /** marks the session used now (callers throttle it); idle sessions are purged */
  touch(id: string): Promise<void>;
  /** deletes sessions idle longer than `idleMs`; returns how many */
  purge(idleMs: number): Promise<number>;
}

/** Messages between the gateway instances sharing a store (PostgreSQL LISTEN/NOTIFY; in-process on SQLite). */
export interface StoreBus {
  /** sends `message` to every subscriber of `topic` on every instance, this one included */
  publish(topic: string, message: Record<string, unknown>): Promise<void>;
  /** calls `listener` for each message on `topic`; resolves once listening, to the unsubscribe function */
  subscribe(topic: string, listener: (message: Record<string, unknown>) => void): Promise<() => Promise<void>>;
}

/** An event as the log keeps it: its place (`seq`), its type, when it happened, and its JSON data as text. */
export interface StoredEvent {
  seq: number;
  type: string;
  at_ms: number;
  /** the event's data, JSON text */
  data: string;
}

/** An event on its way into the log. */
export type NewEvent = Omit<StoredEvent, 'seq'>;

/**
 * The append-only event log every instance and process sharing the store writes and reads as "everything after N":
 * appends are serialised, so a `seq` is never seen before a smaller one that will still appear. Bounded: the oldest
 * events are pruned, and the log says where it starts.
 */
export interface EventLog {
  /** appends the events in order and returns them with their `seq` */
  append(events: NewEvent[]): Promise<StoredEvent[]>;
  /** the events after `seq`, oldest first, at most `limit` */
  after(seq: number, limit: number): Promise<StoredEvent[]>;
  /** the last `seq` ever given (0 when none), and the smallest `seq` still kept (last + 1 when the log is empty) */
  bounds(): Promise<{ first: number; last: number }>;
  /** deletes all but the newest `keep` events; returns how many went */
  prune(keep: number): Promise<number>;
}

/** Whether the store answers now, and if not, why. */
export type StoreHealth = { ok: true } | { ok: false; error: string };

/** Which usage events to read: oldest first, from `since` on. */
export interface UsageQuery {
  since?: string | Date;
  /** at most this many (default and most: 100,000) */
  limit?: number;
}

/** Matches and calls of agent sessions, kept for `hldp suggest examples`. */
export interface UsageLog {
  record(event: UsageEvent): Promise<void>;
  list(query?: UsageQuery): Promise<UsageEvent[]>;
}

/** Everything the gateway must share between instances: one interface, SQLite by default, PostgreSQL to scale out. */
export interface Store {
  /** `sqlite` or `postgres` */
  readonly kind: 'sqlite' | 'postgres';
  receipts: ReceiptStore;
  confirmations: ConfirmationStore;
  mcpSessions: McpSessionStore;
  /** agent sessions, where the config keeps them in the store (`sessions.store`) */
  agentSessions: AgentSessionStore;
  usage: UsageLog;
  bus: StoreBus;
  /** the event log the SSE stream, the console and the notifications read */
  events: EventLog;
  /** a cheap round trip to the database, bounded in time */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
