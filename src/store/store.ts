import type { Receipt, RejectedCall, UsageEvent } from '../core/index.js';
import type { AgentSessionStore } from './agent-sessions.js';
import type { RawField, ReceiptExcerpt, ReceiptSummary, ReceiptSummaryPage } from './receipt-summary.js';
import type { ApprovalStore, RunPlace } from './approval-store.js';

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
  /** only receipts whose output or error holds this text (case-insensitive for ASCII letters; a scan, bounded by the page and `searchRows`) */
  text?: string;
  /** with `text` or `code` (both read from the body): only the newest this many receipts that meet the other filters are searched (what one search may read) */
  searchRows?: number;
  /** with `searchRows`: the searched rows stop before the one that would take their stored text past this many bytes */
  searchBytes?: number;
  /** page size; default 50, at most 1000 */
  limit?: number;
  offset?: number;
}

/** A page of receipts bounded in rows and in bytes. */
export interface ReceiptPage {
  receipts: Receipt[];
  /** more receipts follow this page */
  more: boolean;
  /** the page holds fewer than `limit` receipts because the next one would have passed `maxBytes` */
  endedEarly: boolean;
}

/** A page of receipts as their stored canonical texts, unparsed: for an answer that sends them as they are. */
export interface ReceiptTextPage {
  texts: string[];
  more: boolean;
  endedEarly: boolean;
}

/** Where receipts are kept: every accepted call's one receipt, saved before it is returned, as a link of one hash chain. */
export interface ReceiptStore {
  /** saves a new receipt at the head of the chain; a second receipt with the same id is refused (throws) */
  save(receipt: Receipt): Promise<void>;
  get(id: string): Promise<Receipt | undefined>;
  /**
   * A receipt's stored canonical text, unparsed (bytes, or text), for an answer that sends it as it is; `caller`: only
   * when it is that caller's. A large one is read off the event loop where the store can.
   */
  getText(id: string, options?: { caller?: string }): Promise<string | Uint8Array | undefined>;
  /**
   * Receipts whose id starts with `prefix` (compared as code points, whatever the database's collation), newest first,
   * at most `limit`, read through an index (for `hldp receipts <prefix>`); every store has it: PostgreSQL's was missing
   * and the CLI said "no receipt" for the short ids the console and `hldp tail` print (review userZ6 F9).
   */
  findByPrefix(prefix: string, limit: number): Promise<Receipt[]>;
  list(query?: ReceiptQuery): Promise<Receipt[]>;
  /**
   * One page (`limit`, `offset` and the filters of `query`; not `text`) bounded in bytes too: it ends before the
   * receipt that would take the stored text past `maxBytes` (the first receipt always comes), read in one snapshot.
   */
  page(query: ReceiptQuery, maxBytes: number): Promise<ReceiptPage>;
  /** `page`, its receipts as their stored texts, never parsed (GET /v1/receipts sends them as they are) */
  pageTexts(query: ReceiptQuery, maxBytes: number): Promise<ReceiptTextPage>;
  /** `page`, each receipt as the few fields a list shows, read out of its stored text by the database (never parsed here) */
  pageSummaries(query: ReceiptQuery, maxBytes: number): Promise<ReceiptSummaryPage>;
  /**
   * A bounded search (`text` and/or `code`, at most `searchRows` rows and `searchBytes` of stored text, the newest that
   * meet the other filters), its finds as summaries; off the event loop where the store can.
   */
  searchSummaries(query: ReceiptQuery & { searchRows: number; searchBytes: number }): Promise<ReceiptSummary[]>;
  /** one receipt for a view, each string longer than `chars` cut (and said so); a large one read and parsed off the event loop where the store can; `caller`: only when it is that caller's */
  excerpt(id: string, chars: number, options?: { caller?: string }): Promise<ReceiptExcerpt | undefined>;
  /** one text field of a receipt, whole, as UTF-8 bytes; `caller`: only when it is that caller's */
  rawField(id: string, field: RawField, options?: { caller?: string }): Promise<Uint8Array | undefined>;
  /** walks the chain from its checkpoint to its head in one consistent snapshot; names the first broken link */
  verify(): Promise<ChainReport>;
  /** deletes the oldest receipts the policy lets go, in small batches, moving the checkpoint with them */
  prune(policy: RetentionPolicy, options?: { signal?: AbortSignal }): Promise<PruneResult>;
}

/** Which rejected calls to read: newest first, filtered, one page at a time. */
export interface RejectionQuery {
  caller?: string;
  tool?: string;
  code?: string;
  since?: string | Date;
  limit?: number;
  offset?: number;
}

/** Rejected calls, kept so that a person can see what an agent tried and why it was refused. */
export interface RejectionStore {
  save(record: RejectedCall): Promise<void>;
  list(query?: RejectionQuery): Promise<RejectedCall[]>;
  /** Deletes records older than `days` or beyond the newest `maxRows`, `PRUNE_BATCH` per transaction; resolves to how many. */
  prune(policy: RetentionPolicy): Promise<number>;
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
  /**
   * records a session; with `keep`, at most that many of its principal's (`options.principal`) stay, the least recently
   * seen others deleted with it: every initialize was a row for 24 h, without a count (review Z16-3)
   */
  create(record: McpSessionCreate): Promise<void>;
  get(id: string): Promise<McpSessionRecord | undefined>;
  delete(id: string): Promise<void>;
  /** marks the session used now (callers throttle it); idle sessions are purged */
  touch(id: string): Promise<void>;
  /** deletes sessions idle longer than `idleMs`; returns how many */
  purge(idleMs: number): Promise<number>;
}

/** What `McpSessionStore.create` records. */
export interface McpSessionCreate {
  id: string;
  initialize: Record<string, unknown>;
  options?: Record<string, unknown>;
  keep?: number;
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
  /** the events after `seq`, oldest first, at most `limit`; only those of `types` when given (filtered in the query) */
  after(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]>;
  /** the events up to `seq` included, newest first, at most `limit`; only those of `types` when given (filtered in the query) */
  newest(seq: number, limit: number, types?: readonly string[]): Promise<StoredEvent[]>;
  /** the last `seq` ever given (0 when none), and the smallest `seq` still kept (last + 1 when the log is empty) */
  bounds(): Promise<{ first: number; last: number }>;
  /** deletes all but the newest `keep` events (and the delivery claims of those deleted); returns how many went */
  prune(keep: number): Promise<number>;
  /**
   * Claims the delivery of event `seq` to the webhook target `target` for the process `by`, at `atMs`: true when this
   * call's claim was recorded, false when one was already (another instance delivers it). Every instance sees every
   * event; the one whose claim is inserted first POSTs it, and its retries stay with it (U11-12).
   */
  claimDelivery(seq: number, target: string, by: string, atMs: number): Promise<boolean>;
}

/**
 * Secrets one deployment shares: every instance and process on the store reads the same value, made by whichever
 * asked first (the console's cookie-signing key). Kept in the store only: never logged, never in a receipt.
 */
export interface DeploymentSecrets {
  /** the value kept under `name`; when there is none yet, `make()`'s is kept and returned (two racing makers agree on one) */
  getOrCreate(name: string, make: () => string): Promise<string>;
}

/**
 * Console sign-ins signed out before their cookies expired, shared by every instance and process on the store: a
 * cookie signed out at one instance is refused at all of them. Kept until an hour after the cookie would have expired
 * anyway (`SIGN_OUT_KEPT_PAST_EXPIRY_MS`).
 */
export interface SignOutList {
  /** records that the sign-in `id` is signed out, until `expiresMs`; drops the records of cookies that expired an hour or more ago */
  add(id: string, expiresMs: number): Promise<void>;
  /** whether the sign-in `id` was signed out */
  has(id: string): Promise<boolean>;
}

/**
 * How long past its cookie's expiry a sign-out is kept: instances judge cookies by their own store clocks, which may
 * differ by the drift between their readings of the database's, and an instance ahead pruned a sign-out whose cookie
 * one behind still took (review Z20, Z20-6). The rows are tiny.
 */
export const SIGN_OUT_KEPT_PAST_EXPIRY_MS = 60 * 60 * 1000;

/** A serving process (hldp serve, hldp mcp) as the roll of live instances holds it: who it is, where it runs calls, how long since it said so. */
export interface LiveInstance {
  /** host, pid and instance, as a request's `rule.filed_by.by` and a run's `run.by` name it */
  by: string;
  /** where and how it runs calls, as the requests it files record it */
  place: RunPlace;
  /**
   * how long ago it last renewed its row, by the roll's one clock (the database's on PostgreSQL, the host's on SQLite,
   * whose instances share one host): never two hosts' clocks compared (review Z12, Z12-8)
   */
  quiet_ms: number;
  /** it said it stopped serving (its row is kept, marked, so that others can tell a process that left from one not seen yet) */
  left: boolean;
}

/**
 * The processes that serve on this store, each renewing its row while it runs and marking it when it stops (a killed
 * one's row goes quiet): whether any instance can still run an approved request's call is told from it, so that an
 * approver is not offered an approval no gateway will act on (review userZ6 F10).
 */
export interface InstanceRoll {
  /**
   * Records that `by` serves now, running calls at `place`, drops the rows quiet for `keptMs` or more but those a
   * pending approval request names as its filer (review Z14, Z14-6), and resolves to every row kept. `renewed` is false when another process held the store's write lock (SQLite): the beat does not
   * wait for it on the event loop, it reads the rows and renews the row at the next beat (review Z12, Z12-8)
   */
  beat(by: string, place: RunPlace, keptMs: number): Promise<{ rows: LiveInstance[]; renewed: boolean }>;
  /** marks `by`'s row as left: it stops serving */
  leave(by: string): Promise<void>;
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
  /** approval requests: the confirm flow is the self-approval case */
  approvals: ApprovalStore;
  /** calls refused before they could run */
  rejections: RejectionStore;
  mcpSessions: McpSessionStore;
  /** agent sessions, where the config keeps them in the store (`sessions.store`) */
  agentSessions: AgentSessionStore;
  usage: UsageLog;
  bus: StoreBus;
  /** the event log the SSE stream, the console and the notifications read */
  events: EventLog;
  /** secrets every instance of the deployment shares */
  secrets: DeploymentSecrets;
  /** the console's sign-outs, which every instance honours */
  signOuts: SignOutList;
  /** the instances serving on the store now */
  instances: InstanceRoll;
  /** the schema steps this process applied when it opened the store (an upgrade's first start), oldest first; empty when it was current */
  readonly schemaSteps?: ReadonlyArray<{ version: number; name: string }>;
  /**
   * The store's clock, ms since the epoch: the times it writes and judges (a request's expiry, a run's lease) are this
   * clock's. The process's on SQLite; the database's on PostgreSQL, where instances on hosts whose clocks differ judge
   * one another's rows: a caller comparing a stored time with "now" asks this, not `Date.now()`.
   */
  now(): number;
  /** a cheap round trip to the database, bounded in time */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
