import type { Response } from 'express';
import { sendJsonInPieces } from '../../http-edge/index.js';
import { receiptSeenBy } from '../../policy/index.js';
import type { CallOutcome } from '../service/index.js';
import { principalOf } from '../../request-checks/index.js';

/** HTTP status of what a call came to: an accepted call is 200 whatever its outcome. */
const OUTCOME_STATUS: Record<CallOutcome['kind'], number> = {
  receipt: 200,
  confirmation_required: 202,
  not_found: 404,
  broken: 409,
  invalid_params: 422,
  confirmation_invalid: 409,
  refused: 403,
  substituted: 409,
  timeout_not_allowed: 422,
  too_many_pending: 429,
  too_many_calls: 429,
  store_unavailable: 503,
};

/** The status of a run whose lease lapsed: it ran, but the request it ran for is resolved by another receipt. */
const LEASE_LAPSED_STATUS = 409;

/** The status a call outcome of this kind is answered with. */
export function outcomeStatus(kind: CallOutcome['kind']): number {
  return OUTCOME_STATUS[kind];
}

/** Answers with what a call came to: the receipt (as the principal may read it), the pending confirmation, or why it did not run. */
export function sendOutcome(response: Response, outcome: CallOutcome): void {
  const status = OUTCOME_STATUS[outcome.kind];
  // the host, URL and repository path of the gateway that ran it are an admin's to read (review Z7, Z7-1)
  if (outcome.kind === 'receipt') outcome = { ...outcome, receipt: receiptSeenBy(outcome.receipt, principalOf(response)) };
  if (outcome.kind === 'receipt' && outcome.lease_lapsed) {
    // the run's receipt is not its request's outcome (another process closed the request as interrupted while this
    // one was held up): a 200 with the run's receipt alone read as the confirmation's success, where `hldp confirm`
    // warns and exits 1 (review O, O10). The receipt goes in the answer: the call did run here.
    const { resolved_by, error } = outcome.lease_lapsed;
    response.status(LEASE_LAPSED_STATUS).json({ code: 'LEASE_LAPSED', error, resolved_by, receipt: outcome.receipt });
  } else if (outcome.kind === 'receipt') {
    // policy run enabled the reserved tool's toolset to run it: the receipt stays as stored, the header says what changed
    if (outcome.toolset_enabled) response.set('X-HLDP-Toolset-Enabled', outcome.toolset_enabled);
    // a long output goes out in pieces, the event loop turning between them (see sendJsonInPieces)
    sendJsonInPieces(response, status, outcome.receipt);
  }
  else if (outcome.kind === 'confirmation_required') response.status(status).json(outcome.confirmation);
  else {
    const { kind: _kind, ...body } = outcome;
    response.status(status).json(body);
  }
}
