import { randomBytes } from 'node:crypto';
import { describeGate, wasNotStored, type ProgressUpdate, type Receipt, type ReceiptApproval, type ToolDefinition } from '../core/index.js';
import { hashParams, type ApprovalDecision, type ApprovalPosition, type ApprovalQuery, type ApprovalRecord, type ApprovalRunner, type Store } from '../store/index.js';
import { deciderProblem, type PolicyDecision } from './approval-rules.js';
import { hashToken, type Principal } from './principals.js';
import type { UnrunCall } from './unrun-receipt.js';

/** A call that waits for a person: its approval request, bound to the caller, session, tool, params digest, commit and expiry. */
export interface ConfirmationRequired {
  /** `confirmation_required`: the caller may run it itself with `token`; `approval_required`: an approver decides */
  status: 'confirmation_required' | 'approval_required';
  /** the approval request: `GET /v1/approvals/:id?wait=30` waits for its receipt */
  id: string;
  tool: string;
  /** the params exactly as they will run (defaults filled) */
  params: Record<string, unknown>;
  commit: string;
  /** single use, bound to this exact call; only when the caller may approve its own request */
  token?: string;
  expires_at: string;
  /** why it waits: the rule (`policies/x.hdlp:line:col`) or the tool's `require_confirm` */
  reason: string;
  /** who may decide it, in words */
  approvers: string;
  message: string;
}

/** What filing a request comes to: the caller is told how it will be decided. */
export type ApprovalRequested =
  | { kind: 'confirmation_required'; confirmation: ConfirmationRequired }
  /** the caller already has `most` requests waiting: no new one is filed, nothing ran */
  | { kind: 'too_many_pending'; code: 'TOO_MANY_PENDING'; tool: string; error: string; pending: number; most: number };

/**
 * An approved run whose lease lapsed while it still ran (its process stopped, or its event loop held up, past
 * approvals.run_lease_ms): another process closed the request as interrupted, so two receipts were made for one
 * request. Both are stored; the request is resolved by the first one recorded, `resolved_by`, and only that one is
 * announced as approval.resolved.
 */
export interface LeaseLapsed {
  /** the receipt the request is resolved by */
  resolved_by: string | null;
  /** what happened, in words, for the person who ran (or closed) it */
  error: string;
}

/** What a confirmation token comes to: the receipt of the run, or why it did not run. */
export type ConfirmOutcome =
  /** `lease_lapsed`: the receipt is this run's, but the request was resolved by another, made when its lease lapsed */
  | { kind: 'receipt'; receipt: Receipt; lease_lapsed?: LeaseLapsed }
  | { kind: 'confirmation_invalid'; code: 'CONFIRMATION_INVALID'; reason: string; error: string }
  | { kind: 'timeout_not_allowed'; code: 'TIMEOUT_NOT_ALLOWED'; tool: string; error: string; requested_ms: number; allowed_ms: number };

/** What the desk reads of a registry: its commit, and whether a tool still takes the params a request is bound to. */
export interface ApprovalRegistry {
  index: { commit: string };
  matcher: { lookup(tool: string, params?: unknown): { found: false } | { found: true; valid: false; tool: ToolDefinition } | { found: true; valid: true; tool: ToolDefinition } };
}

/** Why an approval request could not be decided (or read) as asked; nothing ran. */
export type ApprovalRefusalCode =
  | 'APPROVAL_NOT_FOUND'
  | 'APPROVAL_FORBIDDEN'
  | 'APPROVAL_DECIDED'
  | 'APPROVAL_EXPIRED'
  | 'APPROVAL_MISMATCH'
  | 'APPROVAL_OUTDATED'
  | 'TIMEOUT_NOT_ALLOWED'
  | 'STORE_UNAVAILABLE';

/** What deciding, cancelling or reading a request came to: the request and its receipt, or why not. */
export type ApprovalAnswer =
  | { ok: true; approval: ApprovalRecord; receipt: Receipt | null; lease_lapsed?: LeaseLapsed }
  | { ok: false; code: ApprovalRefusalCode; error: string; approval?: ApprovalRecord; receipt?: Receipt; requested_ms?: number; allowed_ms?: number };

/** How a person decides: approve runs exactly the bound call once; deny stores a `DENIED` receipt. */
export interface DecideOptions {
  reason?: string | null;
  /** the params the decider saw: other params than the request's are refused, and it stays pending */
  params?: Record<string, unknown>;
  /** the run's deadline, within the tool's and the gateway's ceilings (default: the one the call asked for) */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** where the approved run's progress goes, if its executor reports any */
  onProgress?: (update: ProgressUpdate) => void;
  /** `elicitation`: the human at the MCP client decides, where the rule lets them */
  via?: 'api' | 'elicitation';
  /**
   * A one-shot CLI process deciding: a request made against another commit than the one this process reads is left
   * pending, not cancelled as outdated — the CLI may read another repository than the gateway that made it (its own
   * default), which is not the registry moving (review N, N7)
   */
  leaveIfElsewhere?: boolean;
}

/** What the desk needs of the gateway: the registry now, the store, and how to run and record. */
export interface ApprovalHost<Registry extends ApprovalRegistry> {
  registry(): Registry;
  store: Store;
  /** the default time a request waits */
  ttlMs: number;
  /** how many requests one caller may have waiting at once (approvals.max_pending_per_caller) */
  maxPendingPerCaller: number;
  /**
   * This process, as an approved call's runner (host, pid, instance), and its lease (approvals.run_lease_ms): renewed
   * while the call runs; once lapsed with no receipt, any process closes the request as interrupted
   */
  runner: ApprovalRunner;
  /** the deadline an approved run gets: the one asked for if the tool and the gateway allow it, or why not */
  deadline(tool: ToolDefinition, requestedMs: number | undefined): { ok: true; timeoutMs: number } | { ok: false; outcome: { error: string; requested_ms: number; allowed_ms: number } };
  run(registry: Registry, tool: ToolDefinition, params: Record<string, unknown>, approval: ReceiptApproval, timeoutMs: number, who: { caller: string; session: string | null; signal?: AbortSignal; onProgress?: (update: ProgressUpdate) => void }): Promise<Receipt>;
  /**
   * Why the request's caller may not run its call now (undefined: it may), asked again when the request is
   * decided: the same access decision a fresh call gets (the principal still configured, a calling role, access
   * blocks and rules, its base list, a policy that now denies). Rights live in the config, which changes without
   * a commit.
   */
  callerProblem(registry: Registry, tool: ToolDefinition, record: ApprovalRecord): string | undefined;
  /** stores (and returns) the receipt of a call that never ran */
  unrun(call: Omit<UnrunCall, 'source'>): Promise<Receipt>;
  /** tells observers (metrics, events) what a decision came to; `lease_lapsed`: the receipt resolves no request */
  finished(outcome: { kind: 'receipt'; receipt: Receipt; lease_lapsed?: LeaseLapsed }): void;
}

// how often a waiting caller looks at the store for a decision another process made
const POLL_MS = 250;
const SWEEP_MS = 1000;
// the store's page when a list is filtered per record: small, since each request holds its params (up to a body's size)
const LIST_PAGE = 50;

/**
 * Approval requests (seed 002): a call the policy sends to a person is bound to `{caller, session, tool, params
 * digest, commit, expiry}` and decided exactly once (one conditional update in the shared store), by an approver,
 * by its caller where the rule allows (the confirm flow), by the human at an MCP client, or by the clock.
 */
export class ApprovalDesk<Registry extends ApprovalRegistry = ApprovalRegistry> {
  readonly #host: ApprovalHost<Registry>;
  readonly #waiters = new Map<string, Set<() => void>>();
  #sweeper: NodeJS.Timeout | undefined;
  #stopped = false;
  #onError: ((error: Error) => void) | undefined;

  constructor(host: ApprovalHost<Registry>) {
    this.#host = host;
  }

  /** Files the request a policy decision asks for; the caller's answer says how it will be decided. */
  async request(registry: Registry, tool: ToolDefinition, params: Record<string, unknown>, decision: Extract<PolicyDecision, { kind: 'approve' }>, caller: string, session: string | null, timeoutMs: number): Promise<ApprovalRequested> {
    // one caller's requests may not bury everyone else's in the approvers' queue (a soft cap: two requests made at once may both pass it)
    const most = this.#host.maxPendingPerCaller;
    const pending = await this.#host.store.approvals.pendingCount(caller);
    if (pending >= most) {
      return {
        kind: 'too_many_pending', code: 'TOO_MANY_PENDING', tool: tool.name, pending, most,
        error: `'${caller}' already has ${pending} requests waiting for approval, the most one caller may have (approvals.max_pending_per_caller: ${most}); nothing has run. Wait for them to be decided, or cancel one (POST /v1/approvals/:id/cancel), then call again`,
      };
    }
    // a confirmation token exists only where the caller may approve its own request
    const token = decision.selfApproval ? `hldp_confirm_${randomBytes(24).toString('base64url')}` : undefined;
    const record = await this.#host.store.approvals.create({
      caller, session, tool: tool.name, method: tool.method, executor: tool.executor, params, commit: registry.index.commit,
      rule: { where: decision.rule?.where ?? null, reason: decision.reason, self_approval: decision.selfApproval, approvers: decision.approvers, elicit: decision.elicit },
      timeoutMs, ...(token ? { tokenHash: hashToken(token) } : {}),
      ttlMs: decision.expiresInMs ?? this.#host.ttlMs,
    });
    const approvers = describeGate(decision.approvers);
    const wait = `GET /v1/approvals/${record.id}?wait=30 waits for its receipt`;
    const message = token
      ? `${decision.reason}: nothing has run. Confirm this exact call with hldp confirm ${token} (or POST /v1/confirm) before ${record.expires_at}; or ${approvers} approves request ${record.id}. ${wait}.`
      : `${decision.reason}: nothing has run. Request ${record.id} waits for ${approvers} to approve it (hldp approvals approve ${record.id}) before ${record.expires_at}. ${wait}.`;
    return {
      kind: 'confirmation_required',
      confirmation: {
        status: token ? 'confirmation_required' : 'approval_required', id: record.id, tool: tool.name, params: record.params, commit: record.commit,
        ...(token ? { token } : {}), expires_at: record.expires_at, reason: decision.reason, approvers, message,
      },
    };
  }

  /**
   * Runs the call a confirmation token stands for: its caller's self-approval, under the token's binding (the
   * caller, the tool, the params, the commit). `caller` is who presents the token.
   */
  async confirm(token: string, options: Omit<DecideOptions, 'via' | 'reason'> & { caller: string }): Promise<ConfirmOutcome> {
    const refuse = (reason: string, error: string): ConfirmOutcome => ({ kind: 'confirmation_invalid', code: 'CONFIRMATION_INVALID', reason, error });
    const record = await this.#host.store.approvals.byTokenHash(hashToken(token));
    // a token is its caller's alone: anyone else who holds it (a leaked log, another agent) is told what an unknown token is told
    if (!record || record.caller !== options.caller) return refuse('unknown', 'no call waits for this confirmation token; call the tool again for a new one');
    const answer = await this.#decide(record, { name: options.caller, token: true }, 'approve', { ...options, via: 'api' });
    if (answer.ok) return { kind: 'receipt', receipt: answer.receipt!, ...(answer.lease_lapsed ? { lease_lapsed: answer.lease_lapsed } : {}) };
    switch (answer.code) {
      case 'APPROVAL_DECIDED':
        return answer.approval?.status === 'expired' ? refuse('expired', `this confirmation token expired: ${answer.error}`) : refuse('used', `this confirmation token was already used: ${answer.error}`);
      case 'APPROVAL_EXPIRED':
        return refuse('expired', answer.error);
      case 'APPROVAL_MISMATCH':
      case 'APPROVAL_OUTDATED':
        return refuse('mismatch', answer.error);
      case 'TIMEOUT_NOT_ALLOWED':
        return { kind: 'timeout_not_allowed', code: 'TIMEOUT_NOT_ALLOWED', tool: record.tool, error: answer.error, requested_ms: answer.requested_ms ?? 0, allowed_ms: answer.allowed_ms ?? 0 };
      default:
        return refuse('unknown', answer.error);
    }
  }

  /** An approver (or, where its rule allows, the caller) approves or denies a pending request, once. */
  async decide(id: string, decider: Principal, verdict: 'approve' | 'deny', options: DecideOptions = {}): Promise<ApprovalAnswer> {
    const record = await this.#host.store.approvals.get(id);
    // one who may not read the request is answered as the read answers them: its params, caller and session stay unseen
    if (!record || !this.maySee(record, decider)) return notFound(id);
    // the human at the MCP client decides where the rule says so; anyone else by role
    const problem = options.via === 'elicitation' ? (record.rule.elicit ? undefined : `request '${id}' may not be decided at the MCP client; ${describeGate(record.rule.approvers)} decides it`) : this.deciderProblem(record, decider);
    if (problem) return { ok: false, code: 'APPROVAL_FORBIDDEN', error: problem, approval: record };
    return this.#decide(record, { name: decider.name, token: false }, verdict, options);
  }

  /** The caller withdraws its own request (or an admin does): a `CANCELLED` receipt, nothing ran. */
  async cancel(id: string, by: Principal, reason: string | null): Promise<ApprovalAnswer> {
    const record = await this.#host.store.approvals.get(id);
    if (!record || !this.maySee(record, by)) return notFound(id);
    if (record.caller !== by.name && !by.roles.has('admin')) return { ok: false, code: 'APPROVAL_FORBIDDEN', error: `only its caller '${record.caller}' or an admin may cancel request '${id}'`, approval: record };
    const closed = await this.#close(record, { status: 'cancelled', by: by.name, reason, via: 'api' }, `cancelled by ${by.name}${reason ? `: ${reason}` : ''}; nothing ran`);
    return closed ?? this.#alreadyDecided(id);
  }

  /** One request, if `principal` may see it: its caller, its approvers, an admin. */
  async get(id: string, principal: Principal): Promise<ApprovalRecord | undefined> {
    const record = await this.#host.store.approvals.get(id);
    return record && this.maySee(record, principal) ? record : undefined;
  }

  /**
   * The requests `principal` may see (`maySee`, as `get` and `decide` judge them), newest first, `offset` and
   * `limit` counted over those. Overdue ones are expired first.
   */
  async list(query: ApprovalQuery, principal: Principal): Promise<ApprovalRecord[]> {
    return (await this.page(query, principal, Number.POSITIVE_INFINITY)).records;
  }

  /**
   * As `list`, but the page ends early (`ended_early`) once the requests' params read would pass `maxBytes` (their
   * JSON; the first request always comes): an agent's requests each hold params up to the body limit, and a list of
   * 1,000 of them was 100 MB read, parsed and sent at once (found in review). The store is read 50 requests at a time,
   * for an admin too, so no more than a store page beyond the budget is ever held.
   */
  async page(query: ApprovalQuery, principal: Principal, maxBytes: number): Promise<{ records: ApprovalRecord[]; ended_early: boolean }> {
    await this.sweep();
    // the store judges what the principal may see and skips `offset` of those in its query: a page reads the rows it
    // returns and at most a store page more, however much history is skipped or hidden (review J F1)
    const limit = query.limit ?? 50;
    const visibleTo = { name: principal.name, roles: [...principal.roles] };
    let bytes = 0;
    const records: ApprovalRecord[] = [];
    // `offset` (or `before`) places the first store page; each next one starts after the last row read, a keyset
    let from: Pick<ApprovalQuery, 'offset' | 'before'> = { offset: query.offset ?? 0, ...(query.before ? { before: query.before } : {}) };
    for (;;) {
      const page = await this.#host.store.approvals.list({ ...query, ...from, visibleTo, limit: LIST_PAGE });
      const last = page.at(-1);
      if (last) from = { offset: 0, before: approvalPosition(last) };
      for (const record of page) {
        // the one rule stays maySee: the query's judgement only spares reading what it would refuse
        if (!this.maySee(record, principal)) continue;
        bytes += JSON.stringify(record.params).length;
        if (records.length > 0 && bytes > maxBytes) return { records, ended_early: true };
        if (records.push(record) >= limit) return { records, ended_early: false };
      }
      if (page.length < LIST_PAGE) return { records, ended_early: false };
    }
  }

  /** Whether `principal` may read this request: its caller, an admin, or one its rule lets decide. The one rule of list, get, decide and the console. */
  maySee(record: ApprovalRecord, principal: Principal): boolean {
    return record.caller === principal.name || principal.roles.has('admin') || deciderProblem({ caller: '', selfApproval: false, approvers: record.rule.approvers }, principal) === undefined;
  }

  /** Why `principal` may not approve or deny this request over the API or the console (undefined: it may); what `decide` asks. */
  deciderProblem(record: ApprovalRecord, principal: Principal): string | undefined {
    return deciderProblem({ caller: record.caller, selfApproval: record.rule.self_approval, approvers: record.rule.approvers }, principal);
  }

  /** Waits up to `ms` for the request to be decided and its receipt stored (expiring it when its time comes). */
  async wait(id: string, ms: number, signal?: AbortSignal): Promise<{ approval: ApprovalRecord; receipt: Receipt | null } | undefined> {
    const until = Date.now() + ms;
    for (;;) {
      const record = await this.#host.store.approvals.get(id);
      if (!record) return undefined;
      const overdue = record.status === 'pending' && Date.parse(record.expires_at) <= Date.now();
      if (overdue && (await this.#expire(record))) continue;
      // a run whose process stopped is closed by whoever reads it first, as an overdue request is expired
      if (lapsedRun(record) && (await this.#interrupted(record))) continue;
      const settled = record.status !== 'pending' && record.receipt_id !== null;
      // a closing gateway answers its waiters with what is known now, rather than hold its shutdown up
      if (settled || Date.now() >= until || signal?.aborted || this.#stopped) {
        return { approval: record, receipt: record.receipt_id === null ? null : ((await this.#host.store.receipts.get(record.receipt_id)) ?? null) };
      }
      const expiresIn = record.status === 'pending' ? Math.max(0, Date.parse(record.expires_at) - Date.now()) : POLL_MS;
      await this.#nap(id, Math.min(until - Date.now(), expiresIn, POLL_MS), signal);
    }
  }

  /**
   * Expires every overdue request now (an `EXPIRED` receipt each), and closes every approved request whose run's lease
   * lapsed with no receipt stored (a `CANCELLED` receipt saying the run was interrupted): each once, whichever
   * instance gets there first. Resolves to how many it closed.
   */
  async sweep(): Promise<number> {
    let closed = 0;
    for (const record of await this.#host.store.approvals.due(100)) if (await this.#expire(record)) closed += 1;
    for (const record of await this.#host.store.approvals.lapsed(100)) if (await this.#interrupted(record)) closed += 1;
    return closed;
  }

  /** Sweeps every second until `stop` (servers: unattended requests still expire, and interrupted runs are closed, and say so). */
  start(onError: (error: Error) => void): void {
    this.#onError = onError;
    this.#sweeper ??= setInterval(() => void this.sweep().catch(onError), SWEEP_MS).unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const wake of [...this.#waiters.values()].flatMap((set) => [...set])) wake();
  }

  async #decide(record: ApprovalRecord, decider: { name: string; token: boolean }, verdict: 'approve' | 'deny', options: DecideOptions): Promise<ApprovalAnswer> {
    const via = decider.token ? 'confirm' : (options.via ?? 'api');
    if (record.status !== 'pending') return this.#alreadyDecided(record.id, record);
    if (Date.parse(record.expires_at) <= Date.now()) {
      await this.#expire(record);
      return { ok: false, code: 'APPROVAL_EXPIRED', error: `request '${record.id}' expired at ${record.expires_at}; nothing ran: call the tool again`, approval: record };
    }
    if (options.params !== undefined && hashParams(options.params) !== record.params_hash) {
      return { ok: false, code: 'APPROVAL_MISMATCH', error: `these are not the params request '${record.id}' is bound to (its digest is ${record.params_hash}); it stays pending: decide exactly the call it shows, or call the tool again with the new params`, approval: record };
    }
    const reason = options.reason ?? null;
    if (verdict === 'deny') {
      const closed = await this.#close(record, { status: 'denied', by: decider.name, reason, via }, `denied by ${decider.name}${reason ? `: ${reason}` : ''}; nothing ran`);
      return closed ?? this.#alreadyDecided(record.id);
    }
    // anything changed since the request was made is refused, not forwarded: the commit (the policy's version) or the tool
    const registry = this.#host.registry();
    if (options.leaveIfElsewhere && registry.index.commit !== record.commit) {
      return {
        ok: false, code: 'APPROVAL_MISMATCH', approval: record,
        error: `request '${record.id}' was made against commit ${record.commit}, and this process reads ${registry.index.commit}; nothing was decided, it stays pending: decide it where it was made (the gateway's POST /v1/confirm or /v1/approvals/${record.id}/approve, or its console), or run this command over the same repository (--repo, --config) as that gateway`,
      };
    }
    const lookup = registry.matcher.lookup(record.tool, record.params);
    const moved = registry.index.commit !== record.commit ? `the registry moved from ${record.commit} to ${registry.index.commit} since request '${record.id}' was made` : !lookup.found || !lookup.valid ? `'${record.tool}' no longer accepts these params` : undefined;
    if (moved || !lookup.found || !lookup.valid) {
      const text = `${moved}; nothing ran: call the tool again`;
      const closed = await this.#close(record, { status: 'cancelled', by: decider.name, reason: text, via: 'outdated' }, text);
      return closed?.ok ? { ok: false, code: 'APPROVAL_OUTDATED', error: text, approval: closed.approval, ...(closed.receipt ? { receipt: closed.receipt } : {}) } : this.#alreadyDecided(record.id);
    }
    // the caller's rights as they are now, not as they were when it asked: a revoked principal's call ends here
    const forbidden = this.#host.callerProblem(registry, lookup.tool, record);
    if (forbidden !== undefined) {
      const text = `'${record.caller}' may no longer call '${record.tool}': ${forbidden}; request '${record.id}' is cancelled, nothing ran`;
      const closed = await this.#close(record, { status: 'cancelled', by: decider.name, reason: text, via: 'outdated' }, text);
      return closed?.ok ? { ok: false, code: 'APPROVAL_OUTDATED', error: text, approval: closed.approval, ...(closed.receipt ? { receipt: closed.receipt } : {}) } : this.#alreadyDecided(record.id);
    }
    // checked before the decision: a refused deadline leaves the request pending
    const deadline = this.#host.deadline(lookup.tool, options.timeoutMs ?? record.timeout_ms ?? undefined);
    if (!deadline.ok) return { ok: false, code: 'TIMEOUT_NOT_ALLOWED', error: deadline.outcome.error, approval: record, requested_ms: deadline.outcome.requested_ms, allowed_ms: deadline.outcome.allowed_ms };
    // the decision and the run's lease in one update: no moment when it is approved and no one holds its run
    const runner = this.#host.runner;
    const decided = await this.#host.store.approvals.decide(record.id, { status: 'approved', by: decider.name, reason, via }, runner);
    if (!decided) return this.#alreadyDecided(record.id);
    const renewing = setInterval(() => {
      this.#host.store.approvals.renew(decided.id, runner).then(
        (held) => held || this.#onError?.(new Error(`the run of approved request '${decided.id}' was closed as interrupted by another process while it ran here (its lease lapsed: this process could not renew it in time); its receipt will be stored but not linked`)),
        (error: Error) => this.#onError?.(new Error(`could not renew the lease of approved request '${decided.id}': ${error.message}`)),
      );
    }, Math.max(100, Math.floor(runner.leaseMs / 3))).unref();
    try {
      const receipt = await this.#host.run(registry, lookup.tool, decided.params, linkOf(decided), deadline.timeoutMs, { caller: decided.caller, session: decided.session, ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
      return await this.#settled(decided, receipt, true);
    } finally {
      clearInterval(renewing);
    }
  }

  /**
   * Closes an approved request whose run's lease lapsed with no receipt stored: its process stopped (killed, crashed,
   * its host gone) or could not store the receipt. Nothing runs again; a `CANCELLED` receipt says the call may have
   * run. False when another process took it first, or its runner renewed the lease meanwhile.
   */
  async #interrupted(seen: ApprovalRecord): Promise<boolean> {
    const taken = await this.#host.store.approvals.takeOver(seen, this.#host.runner);
    if (!taken) return false;
    const receipt = await this.#host.unrun({
      tool: taken.tool, method: taken.method, executor: taken.executor, params: taken.params, commit: taken.commit, code: 'CANCELLED',
      error: `${taken.tool}: interrupted: request '${taken.id}' was approved and its run started by ${seen.run?.by ?? 'a gateway'}, which stopped (or could not store the receipt) before its receipt was stored — its lease ended at ${seen.run?.lease_until ?? 'an unknown time'} and was not renewed. The call may have run in part or in whole, and its output is lost: check what it does before calling it again`,
      caller: taken.caller, session: taken.session, approval: linkOf(taken), timeoutMs: taken.timeout_ms ?? 30_000,
    });
    await this.#settled(taken, receipt, false);
    return true;
  }

  /** Decides a request that will not run, stores the receipt that says so; undefined when another decider won. */
  async #close(record: ApprovalRecord, decision: ApprovalDecision, error: string): Promise<ApprovalAnswer | undefined> {
    const decided = await this.#host.store.approvals.decide(record.id, decision);
    if (!decided) return undefined;
    const code = decision.status === 'denied' ? 'DENIED' : decision.status === 'expired' ? 'EXPIRED' : 'CANCELLED';
    const receipt = await this.#host.unrun({
      tool: decided.tool, method: decided.method, executor: decided.executor, params: decided.params, commit: decided.commit,
      code, error: `${decided.tool}: ${error}`, caller: decided.caller, session: decided.session, approval: linkOf(decided),
      // every new request records the deadline it would run under
      timeoutMs: decided.timeout_ms ?? 30_000,
    });
    return this.#settled(decided, receipt, false);
  }

  /**
   * Records `receipt` as the one that resolves the request, and announces it. A run and the process that closed it as
   * interrupted (its lease lapsed while it still ran: a CLI stopped with Ctrl-Z, an event loop held up) both make a
   * receipt: the first recorded resolves the request and is announced as approval.resolved; the other is stored and
   * announced as a receipt only, and the answer says so (`lease_lapsed`), so that `hldp confirm` does not report a
   * run as the request's outcome when the request says otherwise (review O, O10).
   */
  async #settled(decided: ApprovalRecord, receipt: Receipt, ran: boolean): Promise<ApprovalAnswer> {
    // a receipt the store could not take has no id to point at
    const linked = wasNotStored(receipt) || (await this.#host.store.approvals.settle(decided.id, receipt.id));
    const lapsed = linked ? undefined : await this.#lapsed(decided, receipt, ran);
    this.#host.finished({ kind: 'receipt', receipt, ...(lapsed ? { lease_lapsed: lapsed.lease_lapsed } : {}) });
    for (const wake of this.#waiters.get(decided.id) ?? []) wake();
    if (lapsed) return { ok: true, approval: lapsed.approval, receipt, lease_lapsed: lapsed.lease_lapsed };
    return { ok: true, approval: { ...decided, receipt_id: receipt.id }, receipt };
  }

  /** What a receipt that came second for its request says, and the request as it stands (resolved by the other). */
  async #lapsed(decided: ApprovalRecord, receipt: Receipt, ran: boolean): Promise<{ approval: ApprovalRecord; lease_lapsed: LeaseLapsed }> {
    const approval = (await this.#host.store.approvals.get(decided.id)) ?? decided;
    const resolvedBy = approval.receipt_id;
    const error = ran
      ? `the lease of this run lapsed while it ran (this process was held up — stopped, or its event loop blocked — for longer than approvals.run_lease_ms, ${this.#host.runner.leaseMs} ms), and ${approval.run?.by ?? 'another process'} closed request '${decided.id}' as interrupted meanwhile: the request is resolved by receipt ${resolvedBy ?? '(unknown)'}, which says the call may have run. The call did run here; its receipt ${receipt.id} is stored, but it is not the request's outcome`
      : `request '${decided.id}' was resolved by receipt ${resolvedBy ?? '(unknown)'} first (its run stored it after its lease lapsed, while this process closed it as interrupted): receipt ${receipt.id}, which says the run was interrupted, is stored but is not the request's outcome`;
    this.#onError?.(new Error(error));
    return { approval, lease_lapsed: { resolved_by: resolvedBy, error } };
  }

  async #expire(record: ApprovalRecord): Promise<boolean> {
    const closed = await this.#close(record, { status: 'expired', by: null, reason: null, via: 'expiry' }, `no one decided request '${record.id}' before ${record.expires_at}; nothing ran`);
    return closed !== undefined;
  }

  async #alreadyDecided(id: string, known?: ApprovalRecord): Promise<ApprovalAnswer> {
    const record = known ?? (await this.#host.store.approvals.get(id));
    const how = record ? `${record.status}${record.decided_by ? ` by ${record.decided_by}` : ''} at ${record.decided_at}` : 'gone';
    return { ok: false, code: 'APPROVAL_DECIDED', error: `request '${id}' was already decided (${how}); it runs at most once`, ...(record ? { approval: record } : {}) };
  }

  #nap(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(id);
      if (!set) this.#waiters.set(id, (set = new Set()));
      const wake = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      signal?.addEventListener('abort', wake, { once: true });
      set.add(wake);
    });
  }
}

/** Whether an approved request's run has lapsed: no receipt stored, and its lease ended. */
function lapsedRun(record: ApprovalRecord): boolean {
  return record.status === 'approved' && record.receipt_id === null && record.run !== null && Date.parse(record.run.lease_until) <= Date.now();
}

/** The receipt's link to the request its call went through. */
function linkOf(record: ApprovalRecord): ReceiptApproval {
  return {
    id: record.id, status: record.status as ReceiptApproval['status'], decided_by: record.decided_by, reason: record.decision_reason,
    decided_at: record.decided_at ?? new Date().toISOString(), via: record.decided_via ?? 'api', rule: record.rule.where,
  };
}

// the answer to a request that does not exist, or that the asker may not read: the two look alike
function notFound(id: string): ApprovalAnswer {
  return { ok: false, code: 'APPROVAL_NOT_FOUND', error: `no approval request '${id}'; list them with GET /v1/approvals?status=pending` };
}

/** Where a request stands in the newest-first listing: what the next page's keyset starts after. */
export function approvalPosition(record: ApprovalRecord): ApprovalPosition {
  return { createdMs: Date.parse(record.created_at), id: record.id };
}
