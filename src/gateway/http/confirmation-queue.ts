import type { ApprovalDecision, PendingApproval } from '../../console/index.js';
import { approvalId, type CallAsked, type CallOutcome, type Gateway } from '../service/index.js';

interface Waiting extends PendingApproval {
  token: string;
}

const MOST = 1000;

/**
 * The confirmations this instance asked for, decidable from the console until approval requests exist (issue #14):
 * the token of each stays in this process's memory only (the store keeps its hash), so a person can confirm the
 * exact call or deny it. Approving runs it (`Gateway.confirm`); denying uses the token up, so it can never run.
 */
export class ConfirmationQueue {
  readonly #gateway: Gateway;
  readonly #waiting = new Map<string, Waiting>();
  readonly #unsubscribe: () => void;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
    this.#unsubscribe = gateway.observe({ called: (outcome, _seconds, asked) => this.#saw(outcome, asked) });
  }

  /** The confirmations still waiting, oldest first. */
  pending(): PendingApproval[] {
    this.#expire();
    return [...this.#waiting.values()].map(({ token: _token, ...approval }) => approval);
  }

  async approve(id: string, by: string, reason: string): Promise<ApprovalDecision> {
    const waiting = this.#take(id);
    if (!waiting) return { ok: false, status: 409, message: `no confirmation '${id}' is waiting (decided, used or expired)` };
    this.#gateway.decisions.note(id, { by, reason });
    // the call runs for the principal who asked for it; the approver is recorded in its approval.resolved event
    const outcome = await this.#gateway.confirm(waiting.token, waiting.caller === undefined ? {} : { caller: waiting.caller });
    if (outcome.kind === 'receipt') return { ok: true, receipt: outcome.receipt, message: `approved by ${by}: '${waiting.tool}' ran` };
    return { ok: false, status: 409, message: `not run: ${'error' in outcome ? outcome.error : outcome.kind}` };
  }

  async deny(id: string, by: string, reason: string): Promise<ApprovalDecision> {
    const waiting = this.#take(id);
    if (!waiting) return { ok: false, status: 409, message: `no confirmation '${id}' is waiting (decided, used or expired)` };
    const consumed = await this.#gateway.store.confirmations.consume(waiting.token, { tool: waiting.tool, params: waiting.params, commit: waiting.commit });
    if (!consumed.ok) return { ok: false, status: 409, message: consumed.message };
    this.#gateway.events.publish('approval.resolved', { approval: id, kind: 'confirmation', decision: 'denied', tool: waiting.tool, by, reason, receipt: null, ...(waiting.caller === undefined ? {} : { caller: waiting.caller }) });
    return { ok: true, message: `denied by ${by}: '${waiting.tool}' will not run` };
  }

  close(): void {
    this.#unsubscribe();
    this.#waiting.clear();
  }

  #saw(outcome: CallOutcome, asked: CallAsked | undefined): void {
    if (outcome.kind === 'confirmation_required') {
      const { confirmation } = outcome;
      const id = approvalId(confirmation.token);
      this.#waiting.set(id, {
        id, kind: 'confirmation', token: confirmation.token, tool: confirmation.tool, params: confirmation.params, commit: confirmation.commit,
        created_at: new Date().toISOString(), expires_at: confirmation.expires_at,
        ...(asked?.caller === undefined ? {} : { caller: asked.caller }), ...(asked?.session === undefined ? {} : { session: asked.session }),
      });
      // bounded: the oldest go first (their tokens still work where they were handed out)
      for (const key of this.#waiting.keys()) {
        if (this.#waiting.size <= MOST) break;
        this.#waiting.delete(key);
      }
    } else if (outcome.kind === 'receipt' && outcome.receipt.confirmation) {
      // confirmed elsewhere (the API, the CLI of the caller): no longer waiting
      this.#waiting.delete(outcome.receipt.confirmation);
    }
  }

  #take(id: string): Waiting | undefined {
    this.#expire();
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    return waiting;
  }

  #expire(): void {
    const now = Date.now();
    for (const [id, waiting] of this.#waiting) if (Date.parse(waiting.expires_at) <= now) this.#waiting.delete(id);
  }
}
