import type { Receipt, RejectedCall, ToolIndex } from '../core/index.js';
import type { EventHub, HldpEvent } from '../events/index.js';
import type { ReceiptReads } from '../http-edge/index.js';

/** Who is signed in: a name, and whether they may decide approvals. */
export interface ConsolePrincipal {
  name: string;
  roles: readonly string[];
  /** may approve and deny */
  approver: boolean;
  /** sees every principal's calls, sessions and pending approvals; otherwise only its own */
  seesAll: boolean;
}

/** The receipts the failures view asks for. */
export interface ConsoleReceiptQuery {
  status?: 'ok' | 'failed';
  tool?: string;
  caller?: string;
  session?: string;
  code?: string;
  since?: string;
  until?: string;
  /** case-insensitive text in the output or the error */
  text?: string;
  /** with `text`: how many of the newest calls that meet the other filters are searched */
  searchRows?: number;
  /** with `text`: how many bytes of those stored calls are searched at most (the newest first) */
  searchBytes?: number;
  limit: number;
  offset: number;
}

/** What the calls list shows of one call: a few fields the store reads out of it, never the whole receipt. */
export interface ConsoleCallSummary {
  id: string;
  tool: string;
  ok: boolean;
  code: string | null;
  exit_code: number | null;
  started_at: string | null;
  duration_ms: number | null;
  caller: string | null;
  session: string | null;
  /** the start of the error (its first line is shown), null when none */
  error_head: string | null;
}

/** One receipt for its view: each string longer than the view shows cut to its start, and `cut` says which and how long each was. */
export interface ConsoleReceiptExcerpt {
  receipt: Receipt;
  /** each cut string's path (`output`, `params.content`) and its whole length in UTF-8 bytes */
  cut: Record<string, number>;
}

/** The text fields of a receipt whose whole raw bytes the console serves. */
export type ConsoleRawField = 'output' | 'error' | 'stderr';

/** A page of the calls list: bounded in rows and in bytes of stored calls. */
export interface ConsoleReceiptPage {
  receipts: ConsoleCallSummary[];
  /** more calls follow this page */
  more: boolean;
  /** the page holds fewer than `limit` calls because the next would have passed the byte bound */
  endedEarly: boolean;
}

/** Which rejected calls the rejected view asks for, newest first. */
export interface ConsoleRejectionQuery {
  caller?: string;
  tool?: string;
  code?: string;
  limit: number;
  offset: number;
}

/** A call waiting for a person: a confirmation today, an approval request once principals and policies exist. */
export interface PendingApproval {
  id: string;
  kind: 'confirmation' | 'approval';
  tool: string;
  params: Record<string, unknown>;
  commit: string;
  created_at: string;
  expires_at: string;
  caller?: string;
  session?: string;
  reason?: string;
  /** whether the principal it was listed for may approve or deny it */
  decidable: boolean;
  /** what changed of what it was judged against (its tool's definition, the policies): approving it would cancel it */
  outdated?: string;
  /**
   * why its call does not run here: this instance runs calls elsewhere (another workspace, sandbox, hidden paths,
   * environment or targets) than the one that filed it, so approving it here records the decision and the call runs
   * there; `filed_at` is that one's URL, when recorded and not this instance's own
   */
  elsewhere?: string;
  /** filed by this very gateway under settings it no longer has: it can only be denied here (review userZ4, F15) */
  stranded?: boolean;
  /** with `stranded`: filed by another process that no longer serves, and no instance serving has its settings: it can only be denied (review userZ6 F10) */
  gone?: boolean;
  /** not stranded: filed by an agent's stdio hldp mcp that has exited; approving it is offered, and its next session runs it (U11-16) */
  ended?: boolean;
  /** the gateway's secrets its params hold, by setting (shown `[REDACTED]`, they run as written; review userZ6 F12) */
  secrets_held?: string[];
  filed_at?: string;
}

/** An approval request, decided or not, as a receipt's page reads it: what the receipt's link to it does not keep. */
export interface ConsoleApprovalRecord {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
  tool: string;
  caller: string;
  /** the rule that asked for a person: `policies/x.hdlp:line:col` (null: the tool's own `require_confirm`), and what it says */
  rule: { where: string | null; reason: string };
  /** the deadline the call was to run under when it was filed (a decider may ask for another), null on a request stored before it was kept */
  timeout_ms: number | null;
  created_at: string;
  expires_at: string;
  /** who decided it, how, when and why: null while it waits */
  decision: { by: string | null; via: string | null; at: string | null; reason: string | null } | null;
  /** the receipt its decision produced (the call's, or the one that says nothing ran), null while none */
  receipt_id: string | null;
}

/** What deciding an approval came to. */
export type ApprovalDecision =
  | { ok: true; receipt?: Receipt; message: string }
  /** `pending`: nothing was decided, the request still waits (shown on its own page, not the queue's) */
  | { ok: false; status: number; message: string; pending?: boolean };

/** A live agent session, as the sessions view lists it. */
export interface ConsoleSessionSummary {
  id: string;
  principal?: string;
  created_at: string;
  last_used: string;
  /** `gone`: the registry no longer serves it, and what the session is told of it */
  toolsets: Array<{ name: string; scope: string; expires_at: string | null; gone?: string }>;
  loaded: string[];
  /** the loaded tools the registry no longer has, each with why (the session's own view leaves them out) */
  removed?: Record<string, string>;
}

/**
 * Everything the console reads and does, supplied by the composition root: the console imports no part of the
 * gateway, so it can be tested over any implementation and the gateway can change under it.
 */
export interface ConsoleBackend {
  events: EventHub;
  /** whether a token is needed at all (false: a loopback gateway with no credentials; sign-in is a button) */
  credentialsRequired: boolean;
  /** the principal a token stands for */
  authenticate(token: string): ConsolePrincipal | undefined;
  /** the principal of a signed-in name, if it still exists */
  principal(name: string): ConsolePrincipal | undefined;
  /** whether the principal may see this event (the stream is filtered per subscriber) */
  maysee(principal: ConsolePrincipal, event: HldpEvent): boolean;
  /** a bounded search (`text` and/or `code`, at most `searchRows` calls and `searchBytes` of them), newest first */
  search(query: ConsoleReceiptQuery & { searchRows: number; searchBytes: number }): Promise<ConsoleCallSummary[]>;
  /** one page of calls (the filters of `query`, not `text`), ending before the call that would take the stored text past `maxBytes` (the first always comes) */
  receiptPage(query: ConsoleReceiptQuery, maxBytes: number): Promise<ConsoleReceiptPage>;
  /** one receipt, each string cut to `chars` for display; `caller`: only when it is that caller's */
  receipt(id: string, chars: number, caller?: string): Promise<ConsoleReceiptExcerpt | undefined>;
  /** one text field of a receipt, whole, as its UTF-8 bytes; `caller`: only when it is that caller's */
  receiptRaw(id: string, field: ConsoleRawField, caller?: string): Promise<Uint8Array | undefined>;
  /** the gateway's one count of long receipt texts held for slow readers, the raw fields' among them (review Z8, Z8-8) */
  receiptReads?: ReceiptReads;
  /** the calls refused before they ran, from the store (kept after the event backlog rolled over) */
  rejections(query: ConsoleRejectionQuery): Promise<RejectedCall[]>;
  registry(): { index: ToolIndex; scanError?: { message: string; at: string } };
  sessions(): Promise<ConsoleSessionSummary[]>;
  approvals: {
    /** the pending requests `principal` may see (its own, those its rules let it decide, all for an admin), newest first, one page */
    pending(principal: ConsolePrincipal, page: { offset: number; limit: number }): Promise<PendingApproval[]>;
    /** one pending request `principal` may see, whole */
    request(id: string, principal: ConsolePrincipal): Promise<PendingApproval | undefined>;
    /** one request, decided or not, if `principal` may read it (as GET /v1/approvals/:id judges it) */
    record(id: string, principal: ConsolePrincipal): Promise<ConsoleApprovalRecord | undefined>;
    approve(id: string, by: ConsolePrincipal, reason: string): Promise<ApprovalDecision>;
    deny(id: string, by: ConsolePrincipal, reason: string): Promise<ApprovalDecision>;
  };
  /** the key sign-in cookies are signed with */
  sessionKey: Buffer;
  /**
   * what a principal's sign-ins are bound to (the SHA-256 of its current token; '' for `local`), covered by the
   * cookie's signature: rotating the token ends every sign-in made with the old one, at every instance
   */
  sessionBinding(name: string): string | undefined;
  /**
   * The store's clock (ms since the epoch), by which sign-ins are issued and judged: the sign-out list is pruned by it
   * (on PostgreSQL the database's), so a cookie judged by another clock came back to life for the clocks' difference
   * once anyone signed out (review Z19, Z19-2)
   */
  now(): number;
  /** records that the sign-in `id` (its cookie's nonce) is signed out until `expiresMs`, for every instance sharing the store */
  signOut(id: string, expiresMs: number): Promise<void>;
  /** whether the sign-in `id` was signed out, at this instance or any other */
  signedOut(id: string): Promise<boolean>;
}
