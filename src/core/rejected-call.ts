/** A call refused before it could run (an unknown tool, invalid params, a forbidden tool, a deadline not allowed): a record, not a receipt. */
export interface RejectedCall {
  type: 'rejected';
  id: string;
  at: string;
  caller: string | null;
  session: string | null;
  tool: string;
  /** the refusal's code: one of REJECTION_CODES (openapi/wire-errors.ts) */
  code: string;
  reason: string;
  /** the params as sent, secrets redacted; over 8 KiB of JSON, the head of that text with the cut counted */
  params: unknown;
}
