/** A call refused before it could run (an unknown tool, invalid params, a forbidden tool, a deadline not allowed): a record, not a receipt. */
export interface RejectedCall {
  type: 'rejected';
  id: string;
  at: string;
  caller: string | null;
  session: string | null;
  tool: string;
  /** the refusal's code, one of {@link REJECTION_CODES} */
  code: string;
  reason: string;
  /** the params as sent, secrets redacted; over 8 KiB of JSON, the head of that text with the cut counted */
  params: unknown;
}

/** The codes a rejection is recorded with (rejection-step.ts): what `GET /v1/rejections?code=` may filter on. */
export const REJECTION_CODES = ['TOOL_NOT_FOUND', 'TOOL_BROKEN', 'INVALID_PARAMS', 'TOOL_FORBIDDEN', 'TIMEOUT_NOT_ALLOWED'] as const;

/** A code of {@link REJECTION_CODES}. */
export type RejectionCode = (typeof REJECTION_CODES)[number];
