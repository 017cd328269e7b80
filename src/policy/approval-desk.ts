import { randomBytes } from 'node:crypto';
import { describeGate, type CallDeadline, type Receipt, type ToolDefinition } from '../core/index.js';
import { canonicalJson, hashParams, type ApprovalDecision, type ApprovalQuery, type ApprovalRecord, type DecisionPosition } from '../store/index.js';
import { approvalNotFound, confirmationRequired, confirmOutcome, type ApprovalAnswer, type ApprovalRequested, type ConfirmOutcome } from './approval-answer.js';
import type { ApprovalHost, ApprovalRegistry, DecideOptions } from './approval-host.js';
import { approvalPage, maySeeApproval } from './approval-page.js';
import { fileOnce } from './approval-filing.js';
import { ApprovalRunning, runSource } from './approval-running.js';
import { filerWords, instancePlaceProblem, placeDifference, placeProblem, placeUnknown, readsPlaces } from './run-place.js';
import { sessionEndedApproved, sessionEndedToken, whereItRuns, type Elsewhere } from './approval-elsewhere.js';
import { deciderProblem, nobodyElseDecides, type PolicyDecision } from './approval-rules.js';
import { ApprovalSettlement, lapsedRun } from './approval-settlement.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { callerUnknownHere, othersToken } from './caller-elsewhere.js';
import { changedSince, judgedAgainst } from './judged-against.js';
import { LiveInstances } from './live-instances.js';
import { otherRegistry } from './served-registry.js';
import { hashToken, LOCAL_PRINCIPAL, type Principal } from './principals.js';

// how often a waiting caller looks at the store for a decision another process made
const POLL_MS = 250;
/** the shortest a waiter sleeps between reads of its request */
const MIN_NAP_MS = 10;
const SWEEP_MS = 1000;
// how many requests approved elsewhere a sweep reads
const UNCLAIMED_PAGE = 100;

/** Who decides a request, whether by its caller's confirmation token, and whether it reads where instances run calls (`readsPlaces`). */
type Decider = { name: string; token: boolean; readsPlaces: boolean };

/**
 * Approval requests (seed 002): a call the policy sends to a person is bound to `{caller, session, tool, params
 * digest, commit, expiry}` and decided exactly once (one conditional update in the shared store), by an approver,
 * by its caller where the rule allows (the confirm flow), by the human at an MCP client, or by the clock.
 */
export class ApprovalDesk<Registry extends ApprovalRegistry = ApprovalRegistry> {
  readonly #host: ApprovalHost<Registry>;
  readonly #waiters = new ApprovalWaiters();
  readonly #settlement: ApprovalSettlement;
  readonly #running: ApprovalRunning<Registry>;
  // this process in the store's roll of serving instances, and which others serve (review userZ6 F10)
  readonly #live: LiveInstances;
  #sweeper: NodeJS.Timeout | undefined;
  // where the last sweep stopped among the requests approved elsewhere (none: at the oldest)
  #unclaimedAfter: DecisionPosition | undefined;
  #stopped = false;
  #onError: ((error: Error) => void) | undefined;

  constructor(host: ApprovalHost<Registry>) {
    this.#host = host;
    this.#settlement = new ApprovalSettlement(host, this.#waiters, (error) => this.#onError?.(error));
    this.#running = new ApprovalRunning(host, this.#settlement, (error) => this.#onError?.(error));
    this.#live = new LiveInstances(host.store.instances, host.runner.by, host.place);
  }

  /** Files the request a policy decision asks for; the caller's answer says how it will be decided. */
  async request(registry: Registry, tool: ToolDefinition, params: Record<string, unknown>, decision: Extract<PolicyDecision, { kind: 'approve' }>, caller: string, session: string | null, deadline: CallDeadline): Promise<ApprovalRequested> {
    const most = this.#host.maxPendingPerCaller;
    // a confirmation token exists only where the caller may approve its own request
    const token = decision.selfApproval ? `hldp_confirm_${randomBytes(24).toString('base64url')}` : undefined;
    const filing = await fileOnce(this.#host.store, {
      caller, session, tool: tool.name, method: tool.method, executor: tool.executor, params, commit: registry.index.commit,
      rule: { where: decision.rule?.where ?? null, reason: decision.reason, self_approval: decision.selfApproval, approvers: decision.approvers, elicit: decision.elicit, judged: judgedAgainst(registry.index, tool), place: this.#host.place, filed_by: { ...this.#host.filer(), ...(this.#live.serving ? { roll: true } : {}) }, ...(deadline.from ? { timeout_from: deadline.from } : {}) },
      timeoutMs: deadline.timeoutMs, ...(token ? { tokenHash: hashToken(token) } : {}),
      ttlMs: decision.expiresInMs ?? this.#host.ttlMs,
    }, most, (record) => this.#settlement.expire(record));
    if (filing.record === undefined) {
      const { pending } = filing;
      return {
        kind: 'too_many_pending', code: 'TOO_MANY_PENDING', tool: tool.name, pending, most,
        error: `'${caller}' already has ${pending} requests waiting for approval, the most one caller may have (approvals.max_pending_per_caller: ${most}); nothing has run. Wait for them to be decided, or cancel one (POST /v1/approvals/:id/cancel), then call again`,
      };
    }
    const { record } = filing;
    const alone = this.#host.principals ? nobodyElseDecides(decision, caller, this.#host.principals(), this.#host.principalsLeftOut?.()) : undefined;
    return { kind: 'confirmation_required', confirmation: confirmationRequired(record, decision.reason, describeGate(decision.approvers), token, alone, !filing.filed) };
  }

  /**
   * Runs the call a confirmation token stands for: its caller's self-approval, under the token's binding (the
   * caller, the tool, the params, the commit). `caller` is who presents the token.
   */
  async confirm(token: string, options: Omit<DecideOptions, 'via' | 'reason'> & { caller: string }): Promise<ConfirmOutcome> {
    const record = await this.#host.store.approvals.byTokenHash(hashToken(token));
    // a token is its caller's alone: anyone else who holds it (a leaked log, another agent) is told what an unknown token is told
    if (!record || record.caller !== options.caller) {
      if (record?.status === 'pending' && options.caller === LOCAL_PRINCIPAL.name) return { kind: 'confirmation_invalid', code: 'CONFIRMATION_INVALID', reason: 'other_caller', error: othersToken(record) };
      return { kind: 'confirmation_invalid', code: 'CONFIRMATION_INVALID', reason: 'unknown', error: 'no call waits for this confirmation token; call the tool again for a new one' };
    }
    // the presenter is the caller: an agent is told which settings differ, not their values (review Z3, Z3-4)
    const presenter = this.#host.principals?.().find((principal) => principal.name === options.caller);
    const answer = await this.#decide(record, { name: options.caller, token: true, readsPlaces: presenter !== undefined && readsPlaces(presenter) }, 'approve', { ...options, via: 'api' });
    return confirmOutcome(answer, record.tool);
  }

  /** An approver (or, where its rule allows, the caller) approves or denies a pending request, once. */
  async decide(id: string, decider: Principal, verdict: 'approve' | 'deny', options: DecideOptions = {}): Promise<ApprovalAnswer> {
    const record = await this.#host.store.approvals.get(id);
    // one who may not read the request is answered as the read answers them: its params, caller and session stay unseen
    if (!record || !this.maySee(record, decider)) return approvalNotFound(id);
    // the human at the MCP client decides where the rule says so; anyone else by role
    const problem = options.via === 'elicitation' ? (record.rule.elicit ? undefined : `request '${id}' may not be decided at the MCP client; ${describeGate(record.rule.approvers)} decides it`) : this.deciderProblem(record, decider);
    if (problem) return { ok: false, code: 'APPROVAL_FORBIDDEN', error: problem, approval: record };
    return this.#decide(record, { name: decider.name, token: false, readsPlaces: readsPlaces(decider) }, verdict, options);
  }

  /** The caller withdraws its own request (or an admin does): a `CANCELLED` receipt, nothing ran. */
  async cancel(id: string, by: Principal, reason: string | null): Promise<ApprovalAnswer> {
    const record = await this.#host.store.approvals.get(id);
    if (!record || !this.maySee(record, by)) return approvalNotFound(id);
    if (record.caller !== by.name && !by.roles.has('admin')) return { ok: false, code: 'APPROVAL_FORBIDDEN', error: `only its caller '${record.caller}' or an admin may cancel request '${id}'`, approval: record };
    const closed = await this.#settlement.close(record, { status: 'cancelled', by: by.name, reason, via: 'api' }, `cancelled by ${by.name}${reason ? `: ${reason}` : ''}; nothing ran`);
    return closed ?? this.#settlement.alreadyDecided(id);
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
    return approvalPage(this.#host.store, query, principal, maxBytes);
  }

  /** Whether `principal` may read this request: its caller, an admin, or one its rule lets decide. The one rule of list, get, decide and the console. */
  maySee(record: ApprovalRecord, principal: Principal): boolean {
    return maySeeApproval(record, principal);
  }

  /** Why `principal` may not approve or deny this request over the API or the console (undefined: it may); what `decide` asks. */
  deciderProblem(record: ApprovalRecord, principal: Principal): string | undefined {
    return deciderProblem({ caller: record.caller, selfApproval: record.rule.self_approval, approvers: record.rule.approvers }, principal);
  }

  /**
   * Where this request's call runs, when not here (undefined: here): this instance runs calls elsewhere, or confined
   * otherwise, than the process that filed it. `stranded`: that process was this very gateway, under settings it no
   * longer has (it was restarted with others: review userZ4, F15), so it cannot run it as approved; `gone` too: that
   * process no longer serves and no instance serving on the store has its settings (review userZ6 F10); `ended`, not
   * stranded: that process was an agent's stdio hldp mcp that has exited, and its next session runs it (U11-16). What the console
   * shows in place of *Approve and run*; to `reader`, when it is no admin, without the settings' values or the
   * instances' URLs and hosts (`readsPlaces`, review Z3, Z3-4).
   */
  elsewhere(record: ApprovalRecord, reader: Pick<Principal, 'roles'>): Elsewhere | undefined {
    return this.#elsewhere(record, readsPlaces(reader));
  }

  // the same, its values and URLs shown or not (`values`: the reader is an admin); `ended`: an agent's exited hldp mcp filed it (U11-16)
  #elsewhere(record: ApprovalRecord, values: boolean): Elsewhere | undefined {
    return whereItRuns(record, this.#host.place, this.#host.filer(), this.#live, values);
  }

  /** Waits up to `ms` for the request to be decided and its receipt stored (expiring it when its time comes). */
  async wait(id: string, ms: number, signal?: AbortSignal): Promise<{ approval: ApprovalRecord; receipt: Receipt | null } | undefined> {
    const until = Date.now() + ms;
    for (;;) {
      const record = await this.#host.store.approvals.get(id);
      if (!record) return undefined;
      // the store's clock, as it wrote the expiry: on PostgreSQL the database's, whatever this host's clock says
      const overdue = record.status === 'pending' && Date.parse(record.expires_at) <= this.#host.store.now();
      if (overdue && (await this.#settlement.expire(record))) continue;
      // a run whose process stopped is closed by whoever reads it first, as an overdue request is expired
      if (lapsedRun(record, this.#host.store.now()) && (await this.#settlement.interrupted(record))) continue;
      // approved where it does not run: a gateway of its place (the stdio hldp mcp that filed it, say) runs it now,
      // here too while this process serves, and an overdue one expires (review userZ4, F3)
      if (this.#sweeper !== undefined && ApprovalRunning.unclaimed(record)) this.#running.take(record);
      const settled = record.status !== 'pending' && record.receipt_id !== null;
      // a closing gateway answers its waiters with what is known now, rather than hold its shutdown up
      if (settled || Date.now() >= until || signal?.aborted || this.#stopped) {
        return { approval: record, receipt: record.receipt_id === null ? null : ((await this.#host.store.receipts.get(record.receipt_id)) ?? null) };
      }
      const expiresIn = record.status === 'pending' ? Math.max(0, Date.parse(record.expires_at) - this.#host.store.now()) : POLL_MS;
      // never a nap of 0: an expiry the store would not act on yet (another instance closing it, a clock set back) spun
      // this loop at two queries a turn (review Z19, Z19-1)
      await this.#waiters.nap(id, Math.max(MIN_NAP_MS, Math.min(until - Date.now(), expiresIn, POLL_MS)), signal);
    }
  }

  /**
   * Expires every overdue request now (an `EXPIRED` receipt each), and closes every approved request whose run's lease
   * lapsed with no receipt stored (a `CANCELLED` receipt saying the run was interrupted): each once, whichever
   * instance gets there first. Resolves to how many it closed.
   */
  async sweep(): Promise<number> {
    let closed = 0;
    for (const record of await this.#host.store.approvals.due(100)) if (await this.#settlement.expire(record)) closed += 1;
    for (const record of await this.#host.store.approvals.lapsed(100)) if (await this.#settlement.interrupted(record)) closed += 1;
    // requests approved at an instance that runs calls elsewhere: run here, in the background, if they run here; expired when overdue
    if (this.#sweeper !== undefined) await this.#sweepUnclaimed();
    return closed;
  }

  /**
   * Takes the next page of requests approved elsewhere, after where the last sweep stopped, and starts again from the
   * oldest after the last page: more than a page that no gateway runs (their filer gone, until they expire) hid every
   * newer one from each sweep, which read the same oldest page (review Z5, Z5-11). A newer one is seen within a sweep
   * for every page before it.
   */
  async #sweepUnclaimed(): Promise<void> {
    const page = await this.#host.store.approvals.unclaimed(UNCLAIMED_PAGE, this.#unclaimedAfter);
    for (const record of page) this.#running.take(record);
    const last = page.at(-1);
    this.#unclaimedAfter = page.length < UNCLAIMED_PAGE || last?.decided_at == null ? undefined : { decidedMs: Date.parse(last.decided_at), id: last.id };
  }

  /**
   * Sweeps every second until `stop` (servers and hldp mcp: unattended requests still expire, interrupted runs are
   * closed, and say so, and requests approved at an instance that runs calls elsewhere run here when their place is this one's).
   * `onRollError`: what the roll of live instances could not do (a failing beat); `first` for the first of a streak.
   */
  start(onError: (error: Error) => void, onRollError: (error: Error, first: boolean) => void = onError): Promise<void> {
    this.#onError = onError;
    this.#sweeper ??= setInterval(() => void this.sweep().catch(onError), SWEEP_MS).unref();
    // resolves once this process is in the store's roll of serving instances; its failures are its own
    return this.#live.start(onRollError);
  }

  /** Stops sweeping; resolves once this process's row has left the store's roll of serving instances. */
  stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    this.#waiters.wakeAll();
    return this.#live.stop();
  }

  async #decide(record: ApprovalRecord, decider: Decider, verdict: 'approve' | 'deny', options: DecideOptions): Promise<ApprovalAnswer> {
    const via = decider.token ? 'confirm' : (options.via ?? 'api');
    if (record.status !== 'pending') return this.#settlement.alreadyDecided(record.id, record);
    if (Date.parse(record.expires_at) <= this.#host.store.now()) {
      await this.#settlement.expire(record);
      return { ok: false, code: 'APPROVAL_EXPIRED', error: `request '${record.id}' expired at ${record.expires_at}; nothing ran: call the tool again`, approval: record };
    }
    const mismatch = options.params === undefined ? undefined : this.#paramsMismatch(record, options.params);
    if (mismatch !== undefined) {
      return { ok: false, code: 'APPROVAL_MISMATCH', error: `these are not the params request '${record.id}' is bound to (its digest is ${record.params_hash}): they differ in: ${mismatch.join(', ')}; it stays pending: decide exactly the call it shows (GET /v1/approvals/${record.id}), or call the tool again with the new params`, approval: record };
    }
    const reason = options.reason ?? null;
    if (verdict === 'deny') {
      const closed = await this.#settlement.close(record, { status: 'denied', by: decider.name, reason, via }, `denied by ${decider.name}${reason ? `: ${reason}` : ''}; nothing ran`);
      return closed ?? this.#settlement.alreadyDecided(record.id);
    }
    return this.#approve(record, decider, reason, via, options);
  }

  /**
   * The keys in which a decider's params differ from the request's, or undefined when they are its call: the request
   * holds them as the tool takes them, defaults filled in, and a decider may send them so or as the agent sent them
   * (review R, R20); the defaults are filled as the call filled them, by the tool's schema.
   */
  #paramsMismatch(record: ApprovalRecord, params: Record<string, unknown>): string[] | undefined {
    if (hashParams(params) === record.params_hash) return undefined;
    const lookup = this.#host.registry().matcher.lookup(record.tool, params);
    const filled = lookup.found && lookup.valid && lookup.data !== undefined ? lookup.data : params;
    if (filled !== params && hashParams(filled) === record.params_hash) return undefined;
    const keys = [...new Set([...Object.keys(record.params), ...Object.keys(filled)])].sort();
    const differing = keys.filter((key) => !Object.hasOwn(filled, key) || !Object.hasOwn(record.params, key) || canonicalJson(filled[key]) !== canonicalJson(record.params[key]));
    return differing.length > 0 ? differing : ['values the request holds'];
  }

  /**
   * Approves a pending request and runs its call, unless anything it was bound to has changed since it was made; at an
   * instance that runs calls elsewhere than the process that filed it, records the approval with no run, for a gateway
   * of the request's place to run (review userZ4, F3).
   */
  async #approve(record: ApprovalRecord, decider: Decider, reason: string | null, via: ApprovalDecision['via'], options: DecideOptions): Promise<ApprovalAnswer> {
    // a one-shot CLI that cannot tell where the request runs (filed before its place was kept) decides nothing
    const unplaced = options.leaveIfElsewhere ? placeUnknown(record, this.#host.place) : undefined;
    if (unplaced !== undefined) return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: unplaced };
    const placed = options.leaveIfElsewhere ? undefined : this.#elsewhere(record, decider.readsPlaces);
    const elsewhere = options.leaveIfElsewhere ? placeProblem(record, this.#host.place) : placed?.text;
    // a confirmation token is its caller's, presented where the call runs; elsewhere it stays good
    if (elsewhere !== undefined && decider.token) {
      // the agent's hldp mcp that filed it has exited: its next session confirms it (U11-3), not "the instance that filed it"
      const ended = placed?.ended ? sessionEndedToken(record, placeDifference(record, this.#host.place, "this instance's", decider.readsPlaces) ?? '') : undefined;
      return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: options.leaveIfElsewhere ? elsewhere : (ended ?? instancePlaceProblem(record, this.#host.place, this.#host.filer(), decider.readsPlaces) ?? elsewhere) };
    }
    // a change to what the request was judged against (the tool's definition, the policies) is refused, not forwarded;
    // any other commit (a README, another tool) leaves it decidable (review userX, X3)
    const registry = this.#host.registry();
    const lookup = registry.matcher.lookup(record.tool, record.params);
    const changed = changedSince(record, registry.index, lookup.found ? lookup.tool : undefined);
    if (options.leaveIfElsewhere && changed !== undefined && registry.index.commit !== record.commit) {
      const other = otherRegistry(record, this.#host.filer().repository); // another registry's request is not outdated (review userZ10, U10-1)
      if (other !== undefined) return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: other };
      return {
        ok: false, code: 'APPROVAL_MISMATCH', approval: record,
        // outdated at the commit this process reads: where the gateways serve it too, approving anywhere cancels it, so
        // "decide it where it was made" sent the approver to a gateway that cancels it (review userZ6 F2)
        error: `request '${record.id}' is outdated at commit ${registry.index.commit}, which this process reads: ${changed}. A gateway serving that commit cancels it when approved (nothing runs; its caller '${record.caller}' must call the tool again): deny it (hldp approvals deny ${record.id}), or close it as outdated in the console. Nothing was decided here, it stays pending until ${record.expires_at}. Only a gateway still serving commit ${record.commit} can run it (this command read another repository or commit than the gateways: --repo, --config)`,
      };
    }
    // a CLI run without the gateway's config (or HLDP_API_TOKEN) knows fewer principals: its view, not the caller removed (review userW, W3)
    if (options.leaveIfElsewhere && this.#host.principals && !this.#host.principals().some((principal) => principal.name === record.caller)) {
      return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: callerUnknownHere(record) };
    }
    // where it runs, its gateway asks these again as it reads them (its registry and principals may not be this
    // process's) before it runs it, and cancels it there if so: here they would cancel what it would run (review Z5, Z5-10)
    if (elsewhere !== undefined && !placed?.stranded) return this.#approveElsewhere(record, decider, reason, via, options, placed?.ended === true);
    // the decider is not the caller: say who must call again (review userX, X3)
    const again = `nothing ran, and request '${record.id}' is cancelled: its caller '${record.caller}' must call the tool again for a new request`;
    if (changed !== undefined) return this.#outdated(record, decider, `${changed}; ${again}`);
    if (!lookup.found || !lookup.valid) return this.#outdated(record, decider, `'${record.tool}' no longer accepts these params; ${again}`);
    // the caller's rights as they are now, not as they were when it asked: a revoked principal's call ends here
    const forbidden = this.#host.callerProblem(registry, lookup.tool, record);
    if (forbidden !== undefined) return this.#outdated(record, decider, `'${record.caller}' may no longer call '${record.tool}': ${forbidden}; request '${record.id}' is cancelled, nothing ran`);
    // a gateway whose own settings changed since it filed the request cannot run it as approved (review userZ4, F15)
    if (placed?.stranded) return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: placed.text };
    // checked before the decision: a refused deadline leaves the request pending
    const deadline = this.#host.deadline(lookup.tool, options.timeoutMs ?? record.timeout_ms ?? undefined);
    if (!deadline.ok) {
      // "nothing ran" alone read as if the token (or request) were spent too (review userU, F9): say it can be used again
      const { error, requested_ms, allowed_ms } = deadline.outcome;
      const still = decider.token ? 'The confirmation token is still good' : `Request '${record.id}' is still pending`;
      return { ok: false, code: 'TIMEOUT_NOT_ALLOWED', error: `${error} ${still}: ${decider.token ? 'confirm' : 'approve'} it again asking for at most ${allowed_ms} ms, or for no deadline.`, approval: record, requested_ms, allowed_ms };
    }
    // the decision and the run's lease in one update: no moment when it is approved and no one holds its run
    const runner = this.#host.runner;
    const decided = await this.#host.store.approvals.decide(record.id, { status: 'approved', by: decider.name, reason, via }, runner);
    if (!decided) return this.#settlement.alreadyDecided(record.id);
    return this.#running.run(registry, lookup.tool, decided, { timeoutMs: deadline.timeoutMs, ...runSource(record, options.timeoutMs, deadline.from) }, options);
  }

  /**
   * Records the approval of a request whose call runs elsewhere than here, with no run: the same conditional update
   * makes exactly one decision win. A gateway of the request's place claims and runs it (`ApprovalRunning`). The
   * deadline is chosen where the call runs, so a decider's own `timeout_ms` is refused here, the request left pending.
   */
  async #approveElsewhere(record: ApprovalRecord, decider: Decider, reason: string | null, via: ApprovalDecision['via'], options: DecideOptions, ended: boolean): Promise<ApprovalAnswer> {
    // a one-shot CLI reads the store itself, every request's place with it; an instance tells values to admins only
    const values = options.leaveIfElsewhere === true || decider.readsPlaces;
    const by = decider.name;
    if (options.timeoutMs !== undefined && options.timeoutMs !== record.timeout_ms) {
      return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: `request '${record.id}' runs at ${filerWords(record, values)}, not here, under the deadline it was filed with (${record.timeout_ms ?? "the tool's"} ms): a decider elsewhere cannot choose another. Nothing was decided; it stays pending: approve it without timeout_ms, or at a gateway with its settings` };
    }
    const anyone = this.#anyoneIsLocal(record, options);
    if (anyone !== undefined) return { ok: false, code: 'APPROVAL_MISMATCH', approval: record, error: anyone };
    // a one-shot CLI says so: the runner takes a `local` decision at its word only from one (review Z7, Z7-4)
    const decided = await this.#host.store.approvals.decide(record.id, { status: 'approved', by, reason, via: options.leaveIfElsewhere ? 'cli' : via });
    if (!decided) return this.#settlement.alreadyDecided(record.id);
    this.#waiters.wake(decided.id);
    const message = ended ? sessionEndedApproved(decided, by) : `approved by ${by}; nothing has run yet: '${decided.tool}' runs once at ${filerWords(decided, values)}, or at any gateway with its settings — not here, which runs calls elsewhere (${placeDifference(decided, this.#host.place, options.leaveIfElsewhere ? "this process's" : "this instance's", values) ?? 'another place'}) — when it next looks (every second while it serves, or when its caller waits for the request), and its receipt answers the caller. If none runs it before ${decided.expires_at}, it expires with nothing run. GET /v1/approvals/${decided.id}?wait=30 waits for the receipt`;
    return { ok: true, approval: decided, receipt: null, runs_elsewhere: { filed_by: values ? decided.rule.filed_by ?? null : null, message } };
  }

  /**
   * Why this serving instance may not approve, as `local`, a named principal's request that runs elsewhere (undefined:
   * it may): it has no credentials, so `local` is anyone who reaches it, and the gateway that filed the request (a
   * named caller: it has credentials) would run the call on their word. A one-shot CLI's `local` reads the store
   * itself, and is the operator (review Z5, Z5-9).
   */
  #anyoneIsLocal(record: ApprovalRecord, options: DecideOptions): string | undefined {
    const principals = this.#host.principals?.();
    if (options.leaveIfElsewhere || principals === undefined || record.caller === LOCAL_PRINCIPAL.name) return undefined;
    if (principals.some((principal) => principal.name !== LOCAL_PRINCIPAL.name)) return undefined;
    return `request '${record.id}' of '${record.caller}' runs at the gateway that filed it, not here, and this instance has no credentials (every caller here is '${LOCAL_PRINCIPAL.name}'): its approval would run a call there on the word of anyone who reaches this one. Nothing was decided; it stays pending (until ${record.expires_at}): approve it at an instance with principals as one of them, or with hldp approvals approve ${record.id} (HLDP_TOKEN set to your principal's token); any instance may deny it`;
  }

  /** Cancels a request whose call is no longer what it was bound to (the registry moved, the caller's rights changed). */
  async #outdated(record: ApprovalRecord, decider: Decider, text: string): Promise<ApprovalAnswer> {
    const closed = await this.#settlement.close(record, { status: 'cancelled', by: decider.name, reason: text, via: 'outdated' }, text);
    return closed?.ok ? { ok: false, code: 'APPROVAL_OUTDATED', error: text, approval: closed.approval, ...(closed.receipt ? { receipt: closed.receipt } : {}) } : this.#settlement.alreadyDecided(record.id);
  }
}
