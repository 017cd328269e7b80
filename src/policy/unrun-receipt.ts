import { randomUUID } from 'node:crypto';
import type { ErrorCode, ExecutorName, Receipt, ReceiptApproval, ReceiptSource, TimeoutSource } from '../core/index.js';

/** What a receipt of a call that never ran says about it. */
export interface UnrunCall {
  tool: string;
  method: string;
  executor: ExecutorName;
  /** as they would have run, secrets redacted */
  params: Record<string, unknown>;
  commit: string;
  code: Extract<ErrorCode, 'DENIED' | 'EXPIRED' | 'CANCELLED'>;
  /** why it did not run, in words that name the rule or the person */
  error: string;
  caller: string | null;
  session: string | null;
  approval: ReceiptApproval | null;
  timeoutMs: number;
  /** where `timeoutMs` came from, where known */
  timeoutFrom?: TimeoutSource;
  source: ReceiptSource;
}

/** The receipt of a call a policy, an approver or the clock stopped, or whose run was interrupted: the same shape as a run's, nothing produced. */
export function unrunReceipt(call: UnrunCall, now = new Date()): Receipt {
  const at = now.toISOString();
  return {
    ok: false, tool: call.tool, method: call.method, output: '', error: call.error, duration_ms: 0,
    id: randomUUID(), executor: call.executor, stderr: '', code: call.code, exit_code: null, signal: null,
    timed_out: false, output_bytes: 0, cut_bytes: 0,
    commit: call.commit, params: call.params, started_at: at, finished_at: at, confirmation: call.approval?.id ?? null,
    timeout_ms: call.timeoutMs, ...(call.timeoutFrom ? { timeout_from: call.timeoutFrom } : {}), caller: call.caller, session: call.session, approval: call.approval, source: call.source,
  };
}
