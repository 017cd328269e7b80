import type { Diagnostic, NearMiss, Receipt, ToolDefinition } from '../../core/index.js';
import type { ParamProblem } from '../../matcher/index.js';
import type { ConfirmationRequired, LeaseLapsed } from '../../policy/index.js';

export type { ConfirmationRequired };

/** What `{tool, params}` (or a confirmation) comes to: a receipt only when the call was accepted and ran. */
export type CallOutcome =
  /**
   * `toolset_enabled`: the tool was reserved, and policy `run` enabled its toolset and ran it at once. `lease_lapsed`:
   * an approved run's receipt that is not its request's outcome (another process closed the request as interrupted first)
   */
  | { kind: 'receipt'; receipt: Receipt; toolset_enabled?: string | null; lease_lapsed?: LeaseLapsed }
  | { kind: 'confirmation_required'; confirmation: ConfirmationRequired }
  /** `removed_at`, `served_at`: a recent rescan removed the tool, at that commit; the last commit that served it */
  | { kind: 'not_found'; found: false; code: 'TOOL_NOT_FOUND'; error: string; near: NearMiss[]; suggestion: string; removed_at?: string; served_at?: string }
  /** the repository has the tool's folder, but its definition is broken: not served, and why */
  | { kind: 'broken'; found: false; code: 'TOOL_BROKEN'; tool: string; error: string; diagnostics: Diagnostic[] }
  | {
      kind: 'invalid_params';
      found: true;
      code: 'INVALID_PARAMS';
      tool: string;
      error: string;
      problems: ParamProblem[];
      /** the params schema, compact, as the matcher words it */
      schema: string;
      params_schema: ToolDefinition['params_schema'];
    }
  | { kind: 'confirmation_invalid'; code: 'CONFIRMATION_INVALID'; reason: string; error: string }
  /** the rights layer refuses the tool to this caller: nothing ran */
  | { kind: 'refused'; code: 'TOOL_FORBIDDEN'; tool: string; state: 'forbidden'; reason: string; error: string }
  /**
   * the tool is reserved for the session (seed 000 §7): its toolset was enabled (or the tool loaded for the
   * turn) instead, and the call has NOT run; `message` says so and lists the tools with their arguments
   */
  | { kind: 'substituted'; code: 'CALL_NOT_RUN'; ran: false; tool: string; toolset: string | null; tools: string[]; message: string }
  /** the call asked for a deadline longer than the tool (or the gateway's ceiling) allows; nothing ran */
  | { kind: 'timeout_not_allowed'; code: 'TIMEOUT_NOT_ALLOWED'; tool: string; error: string; requested_ms: number; allowed_ms: number }
  /** the caller already has the most approval requests waiting one caller may have: no new one, nothing ran */
  | { kind: 'too_many_pending'; code: 'TOO_MANY_PENDING'; tool: string; error: string; pending: number; most: number }
  /** the caller already has the most calls running one caller may have (max_calls_in_flight_per_caller): nothing ran */
  | { kind: 'too_many_calls'; code: 'TOO_MANY_CALLS'; tool: string; error: string; in_flight: number; most: number }
  /** an approval request could not be made or used because the store is down: nothing ran */
  | { kind: 'store_unavailable'; code: 'STORE_UNAVAILABLE'; error: string };
