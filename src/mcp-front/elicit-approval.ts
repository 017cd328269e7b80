import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { revealHidden } from '../core/index.js';
import type { SessionState } from '../sessions/index.js';
import type { CallOutcome, Gateway } from '../gateway/service/index.js';

/** How the server sends a request related to the `tools/call` being answered (on its own response stream). */
export type SendRelated = (request: { method: 'elicitation/create'; params: Record<string, unknown> }, schema: typeof ElicitResultSchema, options: { timeout: number; signal?: AbortSignal }) => Promise<ElicitResult>;

/**
 * MCP elicitation: a call that waits for approval, where the rule lets the human at the client decide and the
 * client declares the capability, is put to them with `elicitation/create`, showing the exact call. Accept runs
 * it (once, under the request's binding); decline stores `DENIED`. Cancel or no answer in time leaves the request
 * pending for an approver, and the model is not handed its token: the person at the client was asked and did not
 * accept, so a `confirm` from the model must not run it in their place (review userZ11, U11-10). Calling the tool again
 * asks the person again. No capability leaves the outcome as it was.
 */
export async function elicitApproval(gateway: Gateway, server: Server, session: SessionState, outcome: CallOutcome, send: SendRelated, signal?: AbortSignal): Promise<CallOutcome> {
  if (outcome.kind !== 'confirmation_required' || !server.getClientCapabilities()?.elicitation) return outcome;
  const { confirmation } = outcome;
  const record = await gateway.store.approvals.get(confirmation.id);
  if (!record?.rule.elicit || record.status !== 'pending') return outcome;
  // shown as the console shows it: without the configured secrets, and every character that would reorder or hide
  // part of the text (a right-to-left override in a path) as its escape — what the person reads is what runs
  const message = revealHidden(
    `Approve this call? ${confirmation.reason}.\n` +
    `tool: ${record.tool} (${record.executor} ${record.method})\nparams: ${JSON.stringify(gateway.shownParams(record.params), null, 2)}\n` +
    `request ${record.id}, for ${record.caller}, at commit ${record.commit.slice(0, 12)}; decide before ${record.expires_at}`,
  );
  let answer: ElicitResult;
  try {
    answer = await send(
      { method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { reason: { type: 'string', title: 'Reason (optional)', description: 'kept with the decision and in the receipt' } } } } },
      ElicitResultSchema,
      { timeout: Math.max(1, Date.parse(record.expires_at) - gateway.store.now()), ...(signal ? { signal } : {}) },
    );
  } catch {
    // no answer in time, a client that failed or went away: the request stays pending for an approver
    return notAccepted(outcome, 'did not answer');
  }
  if (answer.action === 'cancel') return notAccepted(outcome, 'cancelled');
  const reason = typeof answer.content?.['reason'] === 'string' && answer.content['reason'] !== '' ? answer.content['reason'] : null;
  const decided = await gateway.decide(record.id, gateway.principal(session.principal), answer.action === 'accept' ? 'approve' : 'deny', { reason, via: 'elicitation', ...(signal ? { signal } : {}) });
  if (decided.ok && decided.receipt) return { kind: 'receipt', receipt: decided.receipt };
  // someone decided first (an approver, the clock): its receipt, when there is one, is the answer
  if (!decided.ok && decided.receipt) return { kind: 'receipt', receipt: decided.receipt };
  const state = await gateway.approvals.wait(record.id, 0);
  return state?.receipt ? { kind: 'receipt', receipt: state.receipt } : outcome;
}

/** The pending outcome of a call the person at the client was asked about and did not accept: no token, and why. */
function notAccepted(outcome: CallOutcome & { kind: 'confirmation_required' }, what: string): CallOutcome {
  const { token: _withheld, ...confirmation } = outcome.confirmation;
  return {
    ...outcome,
    confirmation: {
      ...confirmation,
      status: 'approval_required',
      reason: `${confirmation.reason}; the person at your MCP client was asked to approve it and ${what}, so it is not yours to confirm: calling the tool again asks them again`,
    },
  };
}
