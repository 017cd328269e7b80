import { overseesAll } from '../events/index.js';
import { describeGate } from '../core/index.js';
import { holdForAnswer, LONG_TEXT_UNITS, receiptReadsOf } from '../http-edge/index.js';
import { APPROVAL_WAIT_TOOL } from '../export/index.js';
import type { Principal } from '../policy/index.js';
import type { MetaAnswer } from '../sessions/index.js';
import type { OversightGateway, ReceiptOutcome } from './oversight-gateway.js';

/** Waits for approvals (`GET /v1/approvals/:id?wait=`, `approval_wait`) one agent may hold open at once: each polls the store 4 times a second. */
export const MAX_WAITS_PER_AGENT = 16;

// per gateway, so that HTTP long-polls and MCP waits of one agent count against one cap
const waiting = new WeakMap<OversightGateway, Map<string, number>>();

/**
 * Takes one of `principal`'s wait slots on `gateway`: the function that gives it back, or undefined when the agent
 * already holds `MAX_WAITS_PER_AGENT`. Admins and approvers are not counted (they oversee every request).
 */
export function takeWaitSlot(gateway: OversightGateway, principal: Principal): (() => void) | undefined {
  if (overseesAll(principal)) return () => undefined;
  let counts = waiting.get(gateway);
  if (!counts) waiting.set(gateway, (counts = new Map()));
  const held = counts.get(principal.name) ?? 0;
  if (held >= MAX_WAITS_PER_AGENT) return undefined;
  counts.set(principal.name, held + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (counts.get(principal.name) ?? 1) - 1;
    if (left === 0) counts.delete(principal.name);
    else counts.set(principal.name, left);
  };
}

/** The refusal of a wait past the cap, in the words of `GET /v1/approvals/:id?wait=`'s 429. */
export function tooManyWaits(principal: Principal): string {
  return `principal '${principal.name}' already waits on ${MAX_WAITS_PER_AGENT} approval requests (GET /v1/approvals/:id?wait=, ${APPROVAL_WAIT_TOOL.name}), the most one agent may; let one end, or ask without waiting`;
}

/**
 * `approval_wait`: waits up to `seconds` for request `id` to be decided, as `principal` (its caller, one who may decide
 * it, or an admin: anyone else is told no such request exists), then answers the call's receipt — what it came to
 * if it ran, or the receipt saying it did not (denied, expired, cancelled) — or, still undecided, where it stands.
 * An MCP agent told its call is pending had no way to learn what the approved call did (review userV, V4).
 */
export async function waitForApproval(gateway: OversightGateway, principal: Principal, id: string, seconds: number, signal?: AbortSignal): Promise<{ kind: 'receipt'; outcome: ReceiptOutcome } | { kind: 'answer'; answer: MetaAnswer }> {
  const refuse = (code: string, message: string): { kind: 'answer'; answer: MetaAnswer } => ({ kind: 'answer', answer: { ok: false, code, message, data: { code, id }, changed: false } });
  if (!(await gateway.approvals.get(id, principal))) {
    return refuse('APPROVAL_NOT_FOUND', `no approval request '${id}' that '${principal.name}' may see: pass the id (apr_…) of an approval_required answer to one of your own calls`);
  }
  const release = takeWaitSlot(gateway, principal);
  if (!release) return refuse('TOO_MANY_WAITS', tooManyWaits(principal));
  try {
    const state = await gateway.hold(gateway.approvals.wait(id, seconds * 1000, signal));
    if (!state) return refuse('APPROVAL_NOT_FOUND', `no approval request '${id}'`);
    if (state.receipt) {
      // the receipt is held until its client has read it, counted with the receipts' routes: 40 slow approval_wait
      // answers of a 16 MB receipt held +627 MB outside that count (review Z8, Z8-8)
      const { output, stderr, error } = state.receipt;
      const held = holdForAnswer(receiptReadsOf(gateway), principal.name, output.length + (stderr?.length ?? 0) + (error?.length ?? 0), APPROVAL_WAIT_TOOL.name, LONG_TEXT_UNITS);
      if (held) return refuse(held.code, held.message);
      return { kind: 'receipt', outcome: { kind: 'receipt', receipt: state.receipt } };
    }
    const { approval } = state;
    const again = `call ${APPROVAL_WAIT_TOOL.name} with {"id": "${id}"} again`;
    const message = approval.status === 'pending'
      ? `request ${id} ('${approval.tool}') is still pending: nothing has run. ${describeGate(approval.rule.approvers)} decides it before ${approval.expires_at}; ${again} to wait on`
      : approval.status === 'approved' && approval.run === null
      // approved at an instance that runs calls elsewhere: a gateway of its place runs it (review userZ4, F3)
      ? `request ${id} ('${approval.tool}') was approved${approval.decided_by ? ` by ${approval.decided_by}` : ''} and its call has not started yet: it runs at the gateway that filed it, or one with its settings, before ${approval.expires_at} or not at all; ${again} for its receipt`
      : `request ${id} ('${approval.tool}') was ${approval.status}${approval.decided_by ? ` by ${approval.decided_by}` : ''} and its call is running; ${again} for its receipt`;
    return { kind: 'answer', answer: { ok: true, message, data: { id, status: approval.status, tool: approval.tool, expires_at: approval.expires_at, decided_by: approval.decided_by, receipt: null }, changed: false } };
  } finally {
    release();
  }
}
