import type { AccessGate, ExecutorName, SandboxCeiling, TimeoutSource } from '../core/index.js';
import type { NewEvent, RetentionPolicy, StoredEvent } from './store.js';

/** Where an approval request stands: waiting, or decided once (approved and run, denied, expired, cancelled). */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

/** What the policy said when it asked for a person: kept with the request, so that it is decided by the rule it was bound to. */
export interface ApprovalTerms {
  /** `policies/x.hdlp:line:col`, or null when the tool's own `require_confirm` asked */
  where: string | null;
  reason: string;
  /** the caller may approve its own request */
  self_approval: boolean;
  /** who may decide it */
  approvers: AccessGate;
  /** the human at an MCP client may decide it there */
  elicit: boolean;
  /** what the decision was made against; absent on a request stored before it was kept (its commit binds it then) */
  judged?: JudgedAgainst;
  /**
   * Where the call runs, as the process that filed it runs calls: an approver's process that runs it elsewhere is
   * refused. Absent on a request stored before it was kept: then no one-shot CLI runs it (its place is unknown)
   */
  place?: RunPlace;
  /**
   * The process that filed it, as its decider is told where to decide it instead: `by` names it as an approved run's
   * runner does (host, pid, instance), `url` is where it serves (null for a one-shot CLI). Absent on a request stored
   * before it was kept.
   */
  filed_by?: ApprovalFiler;
  /** in a request as one who is no admin reads it, instead of `place` and `filed_by`: who can see them (never stored) */
  place_withheld?: string;
  /** where the request's `timeout_ms` came from (the call, the tool, the default, the gateway's ceiling); absent on a request filed before it was kept */
  timeout_from?: TimeoutSource;
}

/** The process that filed a request: where a decider at an instance that runs calls elsewhere is sent. */
export interface ApprovalFiler {
  /** host, pid and instance, as `run.by` names an approved call's runner */
  by: string;
  /** the URL it serves the API and the console at; null when it serves none (a one-shot `hldp call`) */
  url: string | null;
  /**
   * true: it kept a row in the store's roll of live instances (`gateway_instances`) while it served, so that another
   * instance can tell when no instance serving runs the request's call any more; absent on a request filed before then, or by a one-shot CLI
   */
  roll?: boolean;
  /**
   * The registry it serves (its repository's path or URL, credentials left out, none when it is this package's starter
   * tools; and its ref when set) and the config
   * file it was started with: a CLI reading another registry is told to read this one instead of calling a good
   * request outdated (review userZ10, U10-1). Absent on a request filed before they were kept.
   */
  repository?: { source?: string; ref?: string; config?: string };
}

/** What a run's effects depend on that two processes sharing a store may differ in: where it runs and how it is confined. */
export interface RunPlace {
  /** the workspace (workspace_root, HLDP_WORKSPACE, else the current folder), absolute, symlinks resolved */
  workspace: string;
  /** sandbox mode (`sandbox.mode`) */
  sandbox: string;
  /** who a root process's local tools run as (`sandbox.run_as`), or null when unset */
  run_as: string | null;
  /** the paths no local tool may see (`sandbox.hide`), absolute, symlinks resolved, sorted; absent on a request filed before it was kept */
  hide?: string[];
  /** the most a definition's `sandbox:` block may ask for (`sandbox.ceiling`), null when none; absent on a request filed before it was kept */
  ceiling?: SandboxCeiling | null;
  /** the longest deadline any call runs under (`max_call_timeout_ms`); absent on a request filed before it was kept */
  max_call_timeout_ms?: number;
  /**
   * What else a call runs with, each group by a SHA-256 of its canonical JSON, never its values: `env:NAME` each
   * variable shell tools inherit, `apis:NAME`, `gatekeepers:NAME`, `mcp_servers:NAME` each target (URL and
   * credentials), `forgejo`, `embedded_gatekeeper` and `max_output_bytes`. Absent on a request filed before it was kept
   */
  runs_with?: Record<string, string>;
}

/** The git object ids a request was judged against: only a change to these outdates it, not any commit. */
export interface JudgedAgainst {
  /** the tool's definition: its folder's tree (or file contents) id */
  tool: string;
  /** a digest of every policy file's path and id */
  policies: string;
}

/** A new request for approval: the exact call it is bound to. */
export interface NewApproval {
  caller: string;
  session: string | null;
  tool: string;
  /** the tool's method and executor, so that a receipt can say what would have run */
  method: string;
  executor: ExecutorName;
  /** the params as they will run (defaults filled) */
  params: Record<string, unknown>;
  /** the index commit, which is the policy version too */
  commit: string;
  rule: ApprovalTerms;
  /** the deadline the call is to run under (the one it asked for, or the tool's); `rule.timeout_from` says which */
  timeoutMs?: number;
  /** SHA-256 of the confirmation token, when the caller may approve its own request with it */
  tokenHash?: string;
  ttlMs: number;
}

/** How a request was decided. */
/**
 * How a request was decided: `api` (a principal: the console, the HTTP API, `hldp approvals`), `confirm` (the caller's
 * token), `elicitation` (the human at the MCP client), `expiry`, `outdated`; `cli`: recorded by a one-shot CLI (`hldp
 * approvals approve`, which reads the store itself) for the gateway that filed it to run — a `local` decision a runner
 * takes at its word only so (review Z7, Z7-4).
 */
export type ApprovalVia = 'api' | 'cli' | 'confirm' | 'elicitation' | 'expiry' | 'outdated';

/** An approval request as stored: bound to `{caller, session, tool, params digest, policy commit, expiry}`. */
export interface ApprovalRecord {
  id: string;
  status: ApprovalStatus;
  caller: string;
  session: string | null;
  tool: string;
  method: string;
  executor: ExecutorName;
  params: Record<string, unknown>;
  /** SHA-256 of the canonical params: a call that resumes with other params is refused */
  params_hash: string;
  commit: string;
  rule: ApprovalTerms;
  timeout_ms: number | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  decided_via: ApprovalVia | null;
  /** the receipt the decision produced: the call's (approved), or the one that says it never ran */
  receipt_id: string | null;
  /**
   * An approved call's run: the gateway process running it (host, pid, instance) and when its lease ends. The runner
   * renews the lease while the call runs; once it has lapsed with no receipt stored, another process closes the request
   * with a receipt saying the run was interrupted. Null for a request that was not approved.
   */
  run: ApprovalRun | null;
}

/** Who runs an approved call, and until when its lease holds unless renewed. */
export interface ApprovalRun {
  by: string;
  lease_until: string;
}

/** The process that takes an approved call's run, and how long each lease (and renewal) lasts. */
export interface ApprovalRunner {
  by: string;
  leaseMs: number;
}

/** The one decision a pending request takes. */
export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, 'pending'>;
  by: string | null;
  reason: string | null;
  via: ApprovalVia;
}

/** Which requests to read: newest first, filtered, one page at a time. */
export interface ApprovalQuery {
  status?: ApprovalStatus;
  caller?: string;
  tool?: string;
  /**
   * Only the requests this principal may read (its own, those its role or name may decide; an admin reads every one),
   * judged in the query: a page reads the rows it returns, not those skipped by `offset` or hidden from the asker
   */
  visibleTo?: { name: string; roles: readonly string[] };
  /** only the requests listed after this one, newest first: a keyset, where `offset` walks the index entries it skips */
  before?: ApprovalPosition;
  /** default 50, at most 1000 */
  limit?: number;
  offset?: number;
}

/** Where a request stands in the newest-first order of approval requests: its creation time, then its id. */
export interface ApprovalPosition {
  createdMs: number;
  id: string;
}

/** Where an approved request stands in the oldest-decision-first order of the requests no process has taken the run of: its decision time, then its id. */
export interface DecisionPosition {
  decidedMs: number;
  id: string;
}

/** Approval requests, shared by every instance: each is decided exactly once, by one conditional update. */
/** The store's pending requests at one moment: how many, and how long ago the oldest was filed (absent when none) */
export interface WaitingApprovals {
  count: number;
  oldestAgeMs?: number;
}

export interface ApprovalStore {
  /** files a request, whatever else waits (`file` files one per call) */
  create(request: NewApproval): Promise<ApprovalRecord>;
  /**
   * Files a request unless one for the same call (`callKey`: caller, session, tool, params, what it was judged
   * against, rule, place, deadline) is pending: then resolves to that one, `filed` false, its confirmation token
   * replaced by `request.tokenHash` when given. One conditional insert: of any number of identical calls at once, on
   * any instance, one files (review userZ9, U9-8). The one found may be overdue, not yet expired.
   */
  file(request: NewApproval): Promise<{ record: ApprovalRecord; filed: boolean }>;
  /** the pending request for the same call as `request` (as `file` finds it, its token replaced so), if any */
  repeated(request: NewApproval): Promise<ApprovalRecord | undefined>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** the request a confirmation token stands for */
  byTokenHash(tokenHash: string): Promise<ApprovalRecord | undefined>;
  list(query?: ApprovalQuery): Promise<ApprovalRecord[]>;
  /**
   * Decides a pending request, once: `expired` only when its expiry has passed, any other decision only before it.
   * Resolves to the decided request, or undefined when it was not pending (then, at most one of any number of
   * concurrent deciders, on any instance, gets a request back).
   */
  decide(id: string, decision: ApprovalDecision, runner?: ApprovalRunner): Promise<ApprovalRecord | undefined>;
  /**
   * Records the receipt the decision produced, unless one is recorded already; false then: another receipt resolved
   * the request first (a run whose lease lapsed was closed as interrupted while it still ran). `ran`: the run to keep as
   * the request's in the same update — the one that lapsed, when another process closes it — so that `run` names the
   * process that ran the call, not the one that closed it (review userY, Y5)
   */
  settle(id: string, receiptId: string, ran?: ApprovalRun): Promise<boolean>;
  /**
   * As `settle`, and appends `event` to the event log in the same transaction, only if the receipt was recorded: the
   * stored event, or undefined (nothing recorded, nothing appended). A waiter that sees the request resolved (on any
   * instance, or in another process) finds its event in the log: it was appended after, and an agent that read the
   * events at once missed it (CI21). `ran` as in `settle`.
   */
  settleAnnouncing(id: string, receiptId: string, event: NewEvent, ran?: ApprovalRun): Promise<StoredEvent | undefined>;
  /** extends the lease of a run `runner` holds; false when the request is no longer its own to run (settled, or taken over) */
  renew(id: string, runner: ApprovalRunner): Promise<boolean>;
  /**
   * Takes the run of a request approved at an instance that runs calls elsewhere (approved, no run, no receipt), once:
   * only before its expiry, so of any number of processes at once at most one gets the request back, holding its lease
   */
  claim(id: string, runner: ApprovalRunner): Promise<ApprovalRecord | undefined>;
  /**
   * Approved requests whose run no process has taken yet (approved elsewhere than they run), oldest decision first
   * (then by id); `after`: only those after it in that order, so that a sweep pages through all of them rather than
   * reading the same oldest ones each time (review Z5, Z5-11)
   */
  unclaimed(limit: number, after?: DecisionPosition): Promise<ApprovalRecord[]>;
  /**
   * Closes a request approved elsewhere whose run no process took before its expiry, once: its status becomes
   * `expired` (who approved it stays), so no process can claim it after; undefined when it was claimed or closed first
   */
  expireUnclaimed(id: string): Promise<ApprovalRecord | undefined>;
  /** approved requests with no receipt whose run's lease has lapsed, oldest lease first */
  lapsed(limit: number): Promise<ApprovalRecord[]>;
  /**
   * Takes over the lapsed run `seen` (as `lapsed` returned it), once: only while its lease is the one seen and has
   * lapsed and no receipt is stored, so of any number of processes at once at most one gets the request back.
   */
  takeOver(seen: ApprovalRecord, runner: ApprovalRunner): Promise<ApprovalRecord | undefined>;
  /** how many requests of `caller` are pending (expired ones not yet swept included) */
  pendingCount(caller: string): Promise<number>;
  /**
   * The requests waiting for a decision now, of every caller (expired ones not yet swept left out), and when the
   * oldest of them was filed: what an operator alerts on (`hldp_approvals_pending` in `/metrics`)
   */
  waiting(): Promise<WaitingApprovals>;
  /** pending requests whose expiry has passed, oldest first */
  due(limit: number): Promise<ApprovalRecord[]>;
  /**
   * Deletes decided requests the policy lets go (created more than `days` ago, or older than the newest `maxRows`),
   * `PRUNE_BATCH` per transaction; resolves to how many. A pending request is never deleted, nor an approved one whose
   * run has not stored its receipt yet (for a day after the decision).
   */
  prune(policy: RetentionPolicy): Promise<number>;
}
