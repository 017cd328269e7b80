import type { NearMiss, Receipt, ToolDefinition } from '../../core/index.js';
import type { ParamProblem } from '../../matcher/index.js';

/** A call that needs a human (or the agent, deliberately) to confirm it first. */
export interface ConfirmationRequired {
  status: 'confirmation_required';
  tool: string;
  /** the params exactly as they will run (defaults filled) */
  params: Record<string, unknown>;
  commit: string;
  /** single use; bound to this tool, these params and this commit */
  token: string;
  expires_at: string;
  message: string;
}

/** What `{tool, params}` (or a confirmation) comes to: a receipt only when the call was accepted and ran. */
export type CallOutcome =
  | { kind: 'receipt'; receipt: Receipt }
  | { kind: 'confirmation_required'; confirmation: ConfirmationRequired }
  | { kind: 'not_found'; found: false; code: 'TOOL_NOT_FOUND'; error: string; near: NearMiss[]; suggestion: string }
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
  | { kind: 'confirmation_invalid'; code: 'CONFIRMATION_INVALID'; reason: string; error: string };
