import type { Receipt } from '../core/index.js';
import type { ApprovalFiler, ApprovalRecord } from '../store/index.js';
import { principalSource } from './caller-elsewhere.js';
import { LOCAL_PRINCIPAL } from './principals.js';
import { registryOptions } from './served-registry.js';

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
  /**
   * true: the same call waits already as request `id` (filed before, by this caller): nothing new was filed, and
   * `token`, if any, replaces the one given then (review userZ9, U9-8)
   */
  already_pending?: true;
  /**
   * set when no one but its caller could decide the request, and the caller may not: why, and what to configure; it
   * can only expire, and waiting for it is vain (over MCP an agent was told to wait for 'approver or admin': U10-8)
   */
  undecidable?: string;
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

/** Where an approval made at an instance that runs calls elsewhere will run: at the process that filed it (or one with its settings). */
export interface RunsElsewhere {
  /** the process that filed the request (host, pid, instance; its URL, null for an hldp mcp or a one-shot CLI) */
  filed_by: ApprovalFiler | null;
  /** what happens now, in words: nothing ran yet, where and when it runs, and what if it does not */
  message: string;
}

/** What a confirmation token comes to: the receipt of the run, or why it did not run. */
export type ConfirmOutcome =
  /** `lease_lapsed`: the receipt is this run's, but the request was resolved by another, made when its lease lapsed */
  | { kind: 'receipt'; receipt: Receipt; lease_lapsed?: LeaseLapsed }
  | { kind: 'confirmation_invalid'; code: 'CONFIRMATION_INVALID'; reason: string; error: string }
  | { kind: 'timeout_not_allowed'; code: 'TIMEOUT_NOT_ALLOWED'; tool: string; error: string; requested_ms: number; allowed_ms: number };

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
  /**
   * `runs_elsewhere`: approved at an instance that runs calls elsewhere than the one that filed it: the decision is
   * recorded and nothing ran yet (`receipt` null); the call runs once at a gateway with the request's settings
   */
  | { ok: true; approval: ApprovalRecord; receipt: Receipt | null; lease_lapsed?: LeaseLapsed; runs_elsewhere?: RunsElsewhere }
  | { ok: false; code: ApprovalRefusalCode; error: string; approval?: ApprovalRecord; receipt?: Receipt; requested_ms?: number; allowed_ms?: number };

// the answer to a request that does not exist, or that the asker may not read: the two look alike
export function approvalNotFound(id: string): ApprovalAnswer {
  return { ok: false, code: 'APPROVAL_NOT_FOUND', error: `no approval request '${id}'; list them with GET /v1/approvals?status=pending` };
}

/** What a confirmation token's answer says to the one who presented it: the run's receipt, or why the token did not run it. */
export function confirmOutcome(answer: ApprovalAnswer, tool: string): ConfirmOutcome {
  const refuse = (reason: string, error: string): ConfirmOutcome => ({ kind: 'confirmation_invalid', code: 'CONFIRMATION_INVALID', reason, error });
  if (answer.ok) return { kind: 'receipt', receipt: answer.receipt!, ...(answer.lease_lapsed ? { lease_lapsed: answer.lease_lapsed } : {}) };
  switch (answer.code) {
    case 'APPROVAL_DECIDED':
      // "already decided … runs at most once" read as if the call had run (review userW, W6)
      if (answer.approval?.status === 'expired') return refuse('expired', `this confirmation token expired at ${answer.approval.expires_at}, before anyone confirmed it (request '${answer.approval.id}'): nothing ran. Call the tool again for a new token`);
      return refuse('used', `this confirmation token was already used: ${answer.error}`);
    case 'APPROVAL_EXPIRED':
      return refuse('expired', answer.error);
    case 'APPROVAL_MISMATCH':
    case 'APPROVAL_OUTDATED':
      return refuse('mismatch', answer.error);
    case 'TIMEOUT_NOT_ALLOWED':
      return { kind: 'timeout_not_allowed', code: 'TIMEOUT_NOT_ALLOWED', tool, error: answer.error, requested_ms: answer.requested_ms ?? 0, allowed_ms: answer.allowed_ms ?? 0 };
    default:
      return refuse('unknown', answer.error);
  }
}

/**
 * What the caller of a filed request is told: how it will be decided, by whom, before when, and how to wait for it.
 * An agent was told to run `hldp approvals approve ID`, which it may neither run nor pass (its own request: self-approval
 * is refused); it is told who decides and how to wait (review userV, V10). `nobodyElse`, when no one but the caller
 * could decide the request, says so and what to configure, rather than naming a command that cannot work (V3).
 */
export function confirmationRequired(record: ApprovalRecord, reason: string, approvers: string, token: string | undefined, nobodyElse?: string, repeated = false): ConfirmationRequired {
  // the CLI advice reads the registry and store this gateway serves, not the starter tools (review userZ10, U10-1); to
  // `local` only, who reads where calls run: another caller is not told the gateway's paths
  const served = record.caller === LOCAL_PRINCIPAL.name ? registryOptions(record.rule.filed_by?.repository) : '';
  const wait = `GET /v1/approvals/${record.id}?wait=30 (or hldp approvals show ${record.id} --wait 30${served}) waits for its receipt`;
  const decided = nobodyElse
    ? `Request ${record.id} can be decided by no one: ${nobodyElse}; as it is, it expires at ${record.expires_at}.`
    : `Request ${record.id} waits for ${approvers} to decide it before ${record.expires_at} (in the console, or with hldp approvals approve ${record.id}${served} as one of them), not for its caller.`;
  // the same call repeated while it waits (a retrying client): told so, and what to do instead of calling again
  const already = repeated
    ? `This same call is already waiting as ${record.id} (filed ${record.created_at}): no new request was filed${token ? ', and this token replaces the one given before' : ''}; do not call again, wait for it (${wait.replace(' waits for its receipt', '')}). `
    : '';
  const message = token
    ? `${already}${reason}: nothing has run. Confirm this exact call ${confirmHow(record.caller, token, served)} before ${record.expires_at}; or ${approvers} approves request ${record.id}. ${wait}.`
    : `${already}${reason}: nothing has run. ${decided} ${wait}.`;
  return {
    status: token ? 'confirmation_required' : 'approval_required', id: record.id, tool: record.tool, params: record.params, commit: record.commit,
    ...(token ? { token } : {}), expires_at: record.expires_at, reason, approvers, message, ...(repeated ? { already_pending: true as const } : {}), ...(nobodyElse ? { undecidable: nobodyElse } : {}),
  };
}

// a token confirms only its caller's call: a bare `hldp confirm TOKEN` acts as `local`, so for any other caller it
// was advice that could not work (review userW, W4); the command is named with what makes it act as that caller
function confirmHow(caller: string, token: string, served: string): string {
  if (caller === LOCAL_PRINCIPAL.name) return `with hldp confirm ${token}${served} (or POST /v1/confirm)`;
  return `with POST /v1/confirm {"token": "${token}"} and this call's Authorization, or hldp confirm ${token} with HLDP_TOKEN set to the token this call was made with and ${principalSource(caller)}`;
}
