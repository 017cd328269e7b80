import { randomUUID } from 'node:crypto';
import type { RejectedCall } from '../../core/index.js';
import type { RejectionCode } from '../../openapi/index.js';
import type { CallOutcome } from './call-outcome.js';
import { tooDeepParams } from './unknown-tool.js';

/** What the caller asked, as a rejection records it. */
export interface AskedCall {
  tool: string;
  params: unknown;
  caller: string | null;
  session: string | null;
}

/**
 * The record of a call refused before it could run (an unknown or broken tool, invalid params, a forbidden tool,
 * a deadline not allowed), or undefined for any other outcome. Its params still need their secrets redacted.
 */
export function rejectionOf(outcome: CallOutcome, asked: AskedCall, now = new Date()): RejectedCall | undefined {
  switch (outcome.kind) {
    case 'not_found':
    case 'broken':
    case 'invalid_params':
    case 'refused':
    case 'timeout_not_allowed': {
      const tool = 'tool' in outcome ? outcome.tool : asked.tool;
      const tooDeep = tooDeepParams(asked.params);
      // a value nested past the limit is never walked (redaction and storage both recurse): its shape is enough to know
      const params = tooDeep ? `[not kept: ${tooDeep}]` : (asked.params ?? {});
      return { type: 'rejected', id: randomUUID(), at: now.toISOString(), caller: asked.caller, session: asked.session, tool, code: outcome.code satisfies RejectionCode, reason: outcome.error, params };
    }
    default:
      return undefined;
  }
}
