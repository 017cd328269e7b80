import type { CallDeadline, TimeoutSource, ToolDefinition } from '../core/index.js';
import type { ApprovalRecord } from '../store/index.js';
import type { ApprovalAnswer } from './approval-answer.js';
import type { ApprovalHost, ApprovalRegistry, DecideOptions } from './approval-host.js';
import { linkOf, type ApprovalSettlement } from './approval-settlement.js';
import { deciderProblem } from './approval-rules.js';
import { changedSince } from './judged-against.js';
import { LOCAL_PRINCIPAL } from './principals.js';
import { instancePlaceProblem } from './run-place.js';

/**
 * The runs of approved requests: one this process approved and holds the lease of, and one approved at an instance
 * that runs calls elsewhere (review userZ4, F3: the decision is about the call, which every instance sees alike; the
 * place is only where it runs). Such a request is approved with no run; an instance whose place is the request's —
 * the one that filed it — claims it (one conditional update: once across instances and processes), runs it and
 * settles it with its receipt; if none does before its expiry, it expires with an `EXPIRED` receipt saying so.
 */
export class ApprovalRunning<Registry extends ApprovalRegistry = ApprovalRegistry> {
  readonly #host: ApprovalHost<Registry>;
  readonly #settlement: ApprovalSettlement;
  readonly #report: (error: Error) => void;
  // the requests this process is claiming now: a waiter and the sweep that both see one ask the store once
  readonly #claiming = new Set<string>();

  constructor(host: ApprovalHost<Registry>, settlement: ApprovalSettlement, report: (error: Error) => void) {
    this.#host = host;
    this.#settlement = settlement;
    this.#report = report;
  }

  /** Whether this process runs calls where the request's call runs (its place is the request's). */
  runsHere(record: ApprovalRecord): boolean {
    return instancePlaceProblem(record, this.#host.place, this.#host.filer()) === undefined;
  }

  /** Whether the request was approved elsewhere than it runs and no process has taken its run yet. */
  static unclaimed(record: ApprovalRecord): boolean {
    return record.status === 'approved' && record.receipt_id === null && record.run === null;
  }

  /**
   * Claims and runs, in the background, an approved request no process has taken the run of, if this process runs
   * calls where it runs; or closes it as expired once its expiry has passed (whatever this process's place). Its
   * receipt answers every waiter, here or elsewhere.
   */
  take(record: ApprovalRecord): void {
    if (!ApprovalRunning.unclaimed(record) || this.#claiming.has(record.id)) return;
    const overdue = Date.parse(record.expires_at) <= this.#host.store.now();
    if (!overdue && !this.runsHere(record)) return;
    this.#claiming.add(record.id);
    const taking = overdue ? this.#expire(record) : this.#claimAndRun(record);
    void taking.catch((error: Error) => this.#report(new Error(`could not run approved request '${record.id}': ${error.message}`))).finally(() => this.#claiming.delete(record.id));
  }

  /** Runs an approved request's call while renewing its lease (this process holds it), and settles the request with the receipt. */
  async run(registry: Registry, tool: ToolDefinition, decided: ApprovalRecord, deadline: CallDeadline, options: DecideOptions): Promise<ApprovalAnswer> {
    const runner = this.#host.runner;
    const renewing = setInterval(() => {
      this.#host.store.approvals.renew(decided.id, runner).then(
        (held) => held || this.#report(new Error(`the run of approved request '${decided.id}' was closed as interrupted by another process while it ran here (its lease lapsed: this process could not renew it in time); its receipt will be stored but not linked`)),
        (error: Error) => this.#report(new Error(`could not renew the lease of approved request '${decided.id}': ${error.message}`)),
      );
    }, Math.max(100, Math.floor(runner.leaseMs / 3))).unref();
    try {
      const receipt = await this.#host.run(registry, tool, decided.params, linkOf(decided), deadline, { caller: decided.caller, session: decided.session, ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
      return await this.#settlement.settled(decided, receipt, true);
    } finally {
      clearInterval(renewing);
    }
  }

  /**
   * Takes the run (none if another process took it first), then asks again what the deciding instance asked, as this
   * process reads it: who decided it, the tool's definition and the policies, the caller's rights, the deadline; a request that no
   * longer runs as approved is closed with a `CANCELLED` receipt, nothing run.
   */
  async #claimAndRun(record: ApprovalRecord): Promise<void> {
    const claimed = await this.#host.store.approvals.claim(record.id, this.#host.runner);
    if (!claimed) return;
    const registry = this.#host.registry();
    const lookup = registry.matcher.lookup(claimed.tool, claimed.params);
    const again = `nothing ran, and request '${claimed.id}' is closed: its caller '${claimed.caller}' must call the tool again for a new request`;
    // no host, pid or URL of either instance: the receipt is its caller's to read (review Z5, Z5-8)
    const decider = this.#deciderProblem(claimed);
    if (decider !== undefined) return void (await this.#settlement.closeHeld(claimed, 'CANCELLED', `approved by '${claimed.decided_by ?? '(nobody)'}', who may not decide it at the gateway that runs it: ${decider}; ${again}`));
    const approved = `approved by ${claimed.decided_by ?? 'an approver'} at an instance that runs calls elsewhere`;
    const changed = changedSince(claimed, registry.index, lookup.found ? lookup.tool : undefined);
    if (changed !== undefined) return void (await this.#settlement.closeHeld(claimed, 'CANCELLED', `${approved}, but at the gateway that runs it ${changed}; ${again}`));
    if (!lookup.found || !lookup.valid) return void (await this.#settlement.closeHeld(claimed, 'CANCELLED', `${approved}, but '${claimed.tool}' no longer accepts these params at the gateway that runs it; ${again}`));
    const forbidden = this.#host.callerProblem(registry, lookup.tool, claimed);
    if (forbidden !== undefined) return void (await this.#settlement.closeHeld(claimed, 'CANCELLED', `${approved}, but '${claimed.caller}' may no longer call '${claimed.tool}' at the gateway that runs it: ${forbidden}; ${again}`));
    const deadline = this.#host.deadline(lookup.tool, claimed.timeout_ms ?? undefined);
    if (!deadline.ok) return void (await this.#settlement.closeHeld(claimed, 'CANCELLED', `${approved}, but ${deadline.outcome.error}; ${again}`));
    await this.run(registry, lookup.tool, claimed, { timeoutMs: deadline.timeoutMs, ...runSource(claimed, undefined, deadline.from) }, {});
  }

  /**
   * Why the principal who approved a request elsewhere may not decide it here (undefined: it may), by this process's
   * principals and roles: the deciding instance judged it by its own, which may name another principal so, give the
   * approver role to others, or still hold one revoked here (review Z5, Z5-9). `local` is the operator at a machine
   * (a one-shot CLI reading the store itself, or anyone at an instance without credentials, which approves no named
   * caller's request elsewhere): here as this process's own `local` — for a named caller's request only when a
   * one-shot CLI recorded it (`via: cli`): an instance of an older build sharing the store, without credentials, records
   * anyone's approval as `local` through its API (review Z7, Z7-4). The human at an MCP client decided by the rule's
   * `elicit`, asked where they decided.
   */
  #deciderProblem(record: ApprovalRecord): string | undefined {
    if (record.decided_via === 'elicitation' || this.#host.principals === undefined) return undefined;
    if (record.decided_by === LOCAL_PRINCIPAL.name && record.caller !== LOCAL_PRINCIPAL.name && record.decided_via !== 'cli') {
      return `it was approved through an instance's API, not with hldp approvals approve, and at an instance without credentials every caller is '${LOCAL_PRINCIPAL.name}' (anyone who reached it may have): a named caller's request approved elsewhere runs on the word of one of this gateway's principals, or of hldp approvals approve reading the store`;
    }
    const decider = this.#host.principals().find((principal) => principal.name === record.decided_by);
    if (decider === undefined) return `this gateway has no principal '${record.decided_by ?? '(nobody)'}' (its principals are in its config), so it cannot tell whether they may decide it here`;
    return deciderProblem({ caller: record.caller, selfApproval: record.rule.self_approval, approvers: record.rule.approvers }, decider);
  }

  /** Closes a request approved elsewhere that no process of its place ran before its expiry: an `EXPIRED` receipt, once. */
  async #expire(record: ApprovalRecord): Promise<void> {
    const closed = await this.#host.store.approvals.expireUnclaimed(record.id);
    if (!closed) return;
    // the receipt is its caller's to read: the filing process by neither host nor URL, which are an admin's (review Z5, Z5-7)
    await this.#settlement.closeHeld(closed, 'EXPIRED', `request '${closed.id}' was approved by ${closed.decided_by ?? 'an approver'} at ${closed.decided_at ?? 'an unknown time'}, at an instance that runs calls elsewhere than it was filed, but no gateway with its settings ran it before it expired at ${closed.expires_at}: the gateway that filed it was gone or had other settings by then, and no other gateway with its settings looked. Nothing ran; call the tool again`);
  }
}

/**
 * Where an approved run's deadline came from: the decider's own `timeout_ms` (approve or confirm), else the request's
 * as it was filed; a request filed with no deadline gets the tool's now, whose source the choice names. A request
 * filed by a gateway that did not keep the source leaves it unsaid rather than guessed.
 */
export function runSource(record: ApprovalRecord, askedMs: number | undefined, chosen: TimeoutSource): { from?: TimeoutSource } {
  if (askedMs !== undefined) return { from: 'approval' };
  if (record.timeout_ms === null) return { from: chosen };
  return record.rule.timeout_from ? { from: record.rule.timeout_from } : {};
}
