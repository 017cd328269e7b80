import type { Receipt, ToolIndex } from '../core/index.js';
import type { EventHub } from '../events/index.js';
import { keptName, type Matcher } from '../matcher/index.js';
import type { ApprovalAnswer, ApprovalDesk, DecideOptions, Principal, Principals } from '../policy/index.js';
import type { SessionManager } from '../sessions/index.js';
import type { Store } from '../store/index.js';

/**
 * What this folder uses of the gateway that wires it (the service's `Gateway`, which passes itself): an interface of
 * its own, so that it imports no part of the composition root, which imports it.
 */
export interface OversightGateway {
  /** approval requests: read, waited on and judged as each reader may */
  readonly approvals: Pick<ApprovalDesk, 'get' | 'list' | 'page' | 'wait' | 'elsewhere' | 'deciderProblem'>;
  readonly principals: Principals;
  readonly events: EventHub;
  readonly sessions: Pick<SessionManager, 'list' | 'goneHeld'>;
  readonly store: Pick<Store, 'receipts' | 'rejections' | 'signOuts' | 'now'>;
  /** the registry calls start on now */
  readonly registry: { index: ToolIndex; matcher: Pick<Matcher, 'lookup' | 'resolve'> };
  /** the last rescan's failure, if the index is served in spite of it */
  readonly scanError: { message: string; at: string } | undefined;
  /** a call's params as people and callers are shown them: without any configured secret */
  shownParams(params: Record<string, unknown>): Record<string, unknown>;
  /** which of the configured secrets a call's params hold, by setting (never the value): what the approver is told (review userZ6 F12) */
  secretsHeld(params: Record<string, unknown>): string[];
  /** keeps track of work that writes to the store, so that closing the gateway waits for it */
  hold<T>(work: Promise<T>): Promise<T>;
  /** the principal of that name (absent: `local`) */
  principal(name: string | undefined): Principal;
  decide(id: string, principal: Principal, verdict: 'approve' | 'deny', options?: DecideOptions): Promise<ApprovalAnswer>;
  cancelApproval(id: string, principal: Principal, reason: string | null): Promise<ApprovalAnswer>;
}

/**
 * The tool name a rejections filter's `tool` stands for: rejections of a tool the call resolved to are kept under its
 * name, so a filter naming it by an alias, or by any spelling a call folds to it (case, NFKC, white space, ё as е),
 * found none (review userZ11, U11-13). A name no tool answers to now (an unknown tool's, as asked) is looked for as it is.
 */
export function rejectionsTool(gateway: Pick<OversightGateway, 'registry'>, tool: string): string {
  return keptName(gateway.registry.matcher, tool);
}

/** What an approval wait answers for a decided request that has a receipt: the outcome the gateway's call path gives for a call that ran. */
export interface ReceiptOutcome {
  kind: 'receipt';
  receipt: Receipt;
}
