import { wasNotStored, type Receipt, type ReceiptApproval, type TimeoutSource } from '../core/index.js';
import type { ApprovalDecision, ApprovalRecord, ApprovalRun } from '../store/index.js';
import type { ApprovalAnswer, LeaseLapsed } from './approval-answer.js';
import type { ApprovalHost, ApprovalRegistry } from './approval-host.js';
import type { ApprovalWaiters } from './approval-waiters.js';

/**
 * How a request ends: closed without a run (denied, cancelled, expired, interrupted) with the receipt that says so,
 * or settled by its run's receipt; either way recorded once in the shared store, announced, and its waiters woken.
 */
export class ApprovalSettlement {
  readonly #host: Pick<ApprovalHost<ApprovalRegistry>, 'store' | 'runner' | 'unrun' | 'finished' | 'resolution'>;
  readonly #waiters: ApprovalWaiters;
  readonly #report: (error: Error) => void;

  constructor(host: Pick<ApprovalHost<ApprovalRegistry>, 'store' | 'runner' | 'unrun' | 'finished' | 'resolution'>, waiters: ApprovalWaiters, report: (error: Error) => void) {
    this.#host = host;
    this.#waiters = waiters;
    this.#report = report;
  }
  /**
   * Closes an approved request whose run's lease lapsed with no receipt stored: its process stopped (killed, crashed,
   * its host gone) or could not store the receipt. Nothing runs again; a `CANCELLED` receipt says the call may have
   * run. False when another process took it first, or its runner renewed the lease meanwhile.
   */
  async interrupted(seen: ApprovalRecord): Promise<boolean> {
    const taken = await this.#host.store.approvals.takeOver(seen, this.#host.runner);
    if (!taken) return false;
    const receipt = await this.#host.unrun({
      tool: taken.tool, method: taken.method, executor: taken.executor, params: taken.params, commit: taken.commit, code: 'CANCELLED',
      // no host, pid or instance of either process: the receipt is its caller's to read; the request's run names the
      // runner to an admin (GET /v1/approvals/:id, hldp approvals show) (review Z5, Z5-8)
      error: `${taken.tool}: interrupted: request '${taken.id}' was approved and its run started by a gateway, which stopped (or could not store the receipt) before its receipt was stored — its lease ended at ${seen.run?.lease_until ?? 'an unknown time'} and was not renewed. The call may have run in part or in whole, and its output is lost: check what it does before calling it again. A gateway that found its lease lapsed closed it; an administrator can see which gateway ran it (the request's run)`,
      caller: taken.caller, session: taken.session, approval: linkOf(taken), timeoutMs: taken.timeout_ms ?? 30_000, ...filedSource(taken),
    });
    // the request keeps the run that lapsed as its `run`: the closer held it only to close it, and ran nothing (review userY, Y5)
    await this.settled(taken, receipt, false, seen.run ?? undefined);
    return true;
  }

  /** Decides a request that will not run, stores the receipt that says so; undefined when another decider won. */
  async close(record: ApprovalRecord, decision: ApprovalDecision, error: string): Promise<ApprovalAnswer | undefined> {
    const decided = await this.#host.store.approvals.decide(record.id, decision);
    if (!decided) return undefined;
    const code = decision.status === 'denied' ? 'DENIED' : decision.status === 'expired' ? 'EXPIRED' : 'CANCELLED';
    const receipt = await this.#host.unrun({
      tool: decided.tool, method: decided.method, executor: decided.executor, params: decided.params, commit: decided.commit,
      code, error: `${decided.tool}: ${error}`, caller: decided.caller, session: decided.session, approval: linkOf(decided),
      // every new request records the deadline it would run under
      timeoutMs: decided.timeout_ms ?? 30_000, ...filedSource(decided),
    });
    return this.settled(decided, receipt, false);
  }

  /**
   * Records `receipt` as the one that resolves the request, and announces it. A run and the process that closed it as
   * interrupted (its lease lapsed while it still ran: a CLI stopped with Ctrl-Z, an event loop held up) both make a
   * receipt: the first recorded resolves the request and is announced as approval.resolved; the other is stored and
   * announced as a receipt only, and the answer says so (`lease_lapsed`), so that `hldp confirm` does not report a
   * run as the request's outcome when the request says otherwise (review O, O10).
   */
  async settled(decided: ApprovalRecord, receipt: Receipt, ran: boolean, lapsedRun?: ApprovalRun): Promise<ApprovalAnswer> {
    // a receipt the store could not take has no id to point at
    const linked = wasNotStored(receipt) || (await this.#link(decided, receipt, lapsedRun));
    const lapsed = linked ? undefined : await this.#lapsed(decided, receipt, ran);
    this.#host.finished({ kind: 'receipt', receipt, ...(lapsed ? { lease_lapsed: lapsed.lease_lapsed } : {}) });
    this.#waiters.wake(decided.id);
    if (lapsed) return { ok: true, approval: lapsed.approval, receipt, lease_lapsed: lapsed.lease_lapsed };
    return { ok: true, approval: { ...decided, receipt_id: receipt.id, ...(lapsedRun ? { run: lapsedRun } : {}) }, receipt };
  }

  /**
   * Records the receipt as the request's outcome and, in the same transaction, its approval.resolved event: a waiter
   * answered because the request is resolved (here, at another instance, in another process) finds the event in the
   * log at once. It was published after, and an agent that read hldp://events as soon as approval_wait answered
   * missed it (CI21, test/mcp-front/approval-wait.test.ts). `ran` is put back as the request's run in that same
   * update (see `settled`). False: another receipt resolved it first.
   */
  async #link(decided: ApprovalRecord, receipt: Receipt, ran: ApprovalRun | undefined): Promise<boolean> {
    const resolution = this.#host.resolution;
    if (!resolution) return this.#host.store.approvals.settle(decided.id, receipt.id, ran);
    const stored = await this.#host.store.approvals.settleAnnouncing(decided.id, receipt.id, resolution.event(receipt, decided), ran);
    if (stored) resolution.announced(stored);
    return stored !== undefined;
  }

  /** What a receipt that came second for its request says, and the request as it stands (resolved by the other). */
  async #lapsed(decided: ApprovalRecord, receipt: Receipt, ran: boolean): Promise<{ approval: ApprovalRecord; lease_lapsed: LeaseLapsed }> {
    const approval = (await this.#host.store.approvals.get(decided.id)) ?? decided;
    const resolvedBy = approval.receipt_id;
    const error = ran
      ? `the lease of this run lapsed while it ran (this process was held up — stopped, or its event loop blocked — for longer than approvals.run_lease_ms, ${this.#host.runner.leaseMs} ms), and another process closed request '${decided.id}' as interrupted meanwhile: the request is resolved by receipt ${resolvedBy ?? '(unknown)'}, which says the call may have run. The call did run here; its receipt ${receipt.id} is stored, but it is not the request's outcome`
      : `request '${decided.id}' was resolved by receipt ${resolvedBy ?? '(unknown)'} first (its run stored it after its lease lapsed, while this process closed it as interrupted): receipt ${receipt.id}, which says the run was interrupted, is stored but is not the request's outcome`;
    this.#report(new Error(error));
    return { approval, lease_lapsed: { resolved_by: resolvedBy, error } };
  }

  /**
   * Stores the receipt of a call that will not run for a request this process holds (its run claimed, or closed
   * unclaimed at its expiry), and settles the request with it: nothing ran.
   */
  async closeHeld(held: ApprovalRecord, code: 'EXPIRED' | 'CANCELLED', error: string): Promise<ApprovalAnswer> {
    const receipt = await this.#host.unrun({
      tool: held.tool, method: held.method, executor: held.executor, params: held.params, commit: held.commit, code,
      error: `${held.tool}: ${error}`, caller: held.caller, session: held.session, approval: linkOf(held),
      timeoutMs: held.timeout_ms ?? 30_000, ...filedSource(held),
    });
    return this.settled(held, receipt, false);
  }

  /** Expires an overdue request: an `EXPIRED` receipt; false when another decider won. */
  async expire(record: ApprovalRecord): Promise<boolean> {
    const closed = await this.close(record, { status: 'expired', by: null, reason: null, via: 'expiry' }, `no one decided request '${record.id}' before ${record.expires_at}; nothing ran`);
    return closed !== undefined;
  }

  /** The answer to deciding a request that was decided already (or is gone). */
  async alreadyDecided(id: string, known?: ApprovalRecord): Promise<ApprovalAnswer> {
    const record = known ?? (await this.#host.store.approvals.get(id));
    // an expired request was decided by no one: "already decided … runs at most once" read as if it had run (review userW, W6)
    // approved at an instance that runs calls elsewhere, and no gateway of its place ran it before its expiry
    if (record?.status === 'expired' && record.decided_by !== null) return { ok: false, code: 'APPROVAL_DECIDED', error: `request '${id}' was approved by ${record.decided_by}, but no gateway with its settings (the one that filed it) ran it before it expired at ${record.expires_at}: nothing ran, and it can no longer be decided; its caller calls the tool again for a new request`, approval: record };
    if (record?.status === 'expired') return { ok: false, code: 'APPROVAL_DECIDED', error: `request '${id}' expired at ${record.expires_at} with no one deciding it: nothing ran, and it can no longer be decided; its caller calls the tool again for a new request`, approval: record };
    const how = record ? `${record.status}${record.decided_by ? ` by ${record.decided_by}` : ''} at ${record.decided_at}` : 'gone';
    return { ok: false, code: 'APPROVAL_DECIDED', error: `request '${id}' was already decided (${how}); it runs at most once`, ...(record ? { approval: record } : {}) };
  }

}

/** Whether an approved request's run has lapsed at `now` (the store's clock, which wrote the lease): no receipt stored, and its lease ended. */
export function lapsedRun(record: ApprovalRecord, now: number): boolean {
  return record.status === 'approved' && record.receipt_id === null && record.run !== null && Date.parse(record.run.lease_until) <= now;
}

/** The receipt's link to the request its call went through. */
export function linkOf(record: ApprovalRecord): ReceiptApproval {
  return {
    id: record.id, status: record.status as ReceiptApproval['status'], decided_by: record.decided_by, reason: record.decision_reason,
    decided_at: record.decided_at ?? new Date().toISOString(), via: record.decided_via ?? 'api', rule: record.rule.where,
  };
}

/** Where a request's deadline came from as it was filed, for the receipt of a call that did not run; unsaid where it was not kept. */
function filedSource(record: ApprovalRecord): { timeoutFrom?: TimeoutSource } {
  return record.timeout_ms !== null && record.rule.timeout_from ? { timeoutFrom: record.rule.timeout_from } : {};
}
