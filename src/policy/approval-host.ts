import type { CallDeadline, ProgressUpdate, Receipt, ReceiptApproval, TimeoutSource, ToolDefinition } from '../core/index.js';
import type { ApprovalFiler, ApprovalRecord, ApprovalRunner, NewEvent, RunPlace, Store, StoredEvent } from '../store/index.js';
import type { LeaseLapsed } from './approval-answer.js';
import type { Principal } from './principals.js';
import type { JudgedIndex } from './judged-against.js';
import type { UnrunCall } from './unrun-receipt.js';

/** What the desk reads of a registry: its commit and policy files, and whether a tool still takes the params a request is bound to. */
export interface ApprovalRegistry {
  index: JudgedIndex;
  /** `data`: the params as the tool takes them, defaults filled in (what a request is bound to) */
  matcher: { lookup(tool: string, params?: unknown): { found: false } | { found: true; valid: false; tool: ToolDefinition } | { found: true; valid: true; tool: ToolDefinition; data?: Record<string, unknown> } };
}

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
  /** where this process runs calls: recorded with each request it files, and compared before it runs an approved one */
  place: RunPlace;
  /** this process, as a request it files records it: where a decider elsewhere is sent (its URL, once it serves) */
  filer(): ApprovalFiler;
  /** the deadline an approved run gets: the one asked for if the tool and the gateway allow it, or why not */
  deadline(tool: ToolDefinition, requestedMs: number | undefined): { ok: true; timeoutMs: number; from: TimeoutSource } | { ok: false; outcome: { error: string; requested_ms: number; allowed_ms: number } };
  run(registry: Registry, tool: ToolDefinition, params: Record<string, unknown>, approval: ReceiptApproval, deadline: CallDeadline, who: { caller: string; session: string | null; signal?: AbortSignal; onProgress?: (update: ProgressUpdate) => void }): Promise<Receipt>;
  /**
   * Why the request's caller may not run its call now (undefined: it may), asked again when the request is
   * decided: the same access decision a fresh call gets (the principal still configured, a calling role, access
   * blocks and rules, its base list, a policy that now denies). Rights live in the config, which changes without
   * a commit.
   */
  callerProblem(registry: Registry, tool: ToolDefinition, record: ApprovalRecord): string | undefined;
  /** every principal who could decide a request (`local`, the operator at the CLI, among them); absent: not judged */
  principals?: () => readonly Principal[];
  /**
   * principals the config declares whose token was not at hand, so a command that authenticates no one (`hldp call`)
   * left them out of `principals`: they may still decide at the gateway, where their token is (review userZ9, U9-1)
   */
  principalsLeftOut?: () => ReadonlyArray<Pick<Principal, 'name' | 'roles'>>;
  /** stores (and returns) the receipt of a call that never ran */
  unrun(call: Omit<UnrunCall, 'source'>): Promise<Receipt>;
  /** tells observers (metrics, events) what a decision came to; `lease_lapsed`: the receipt resolves no request */
  finished(outcome: { kind: 'receipt'; receipt: Receipt; lease_lapsed?: LeaseLapsed }): void;
  /**
   * The event that announces a request resolved by `receipt` (approval.resolved), appended in the transaction that
   * records the receipt as the request's outcome, and `announced` once it is stored (to deliver it); absent: none is
   */
  resolution?: { event(receipt: Receipt, request: Pick<ApprovalRecord, 'rule'>): NewEvent; announced(event: StoredEvent): void };
}
