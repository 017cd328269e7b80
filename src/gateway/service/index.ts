// The gateway service: registry (index + matcher, swapped atomically), the call path, approval requests and rescans.
export { unknownToolOutcome } from './unknown-tool.js';
export { unknownToolFor } from './session-step.js';
export { brokenDefinition } from '../../core/index.js';
export { Gateway, openConfiguredStore, type CallAsked, type CallOptions, type CallRequest, type CallStep, type GatewayObserver, type GatewayOptions, type MatchOptions, type Registry, type RescanResult } from './gateway.js';
export { MATCH_WAIT_MS, SearchIndexLoadingError } from './matching-readiness.js';
export type { CallOutcome, ConfirmationRequired } from './call-outcome.js';
export { metaToolWithoutSession, runMetaTool, META_TOOL_BY_NAME, type MetaOutcome } from './meta-calls.js';
export { warnOfWholeListing } from './whole-listing.js';
// what a principal with no session lists, as GET /v1/sessions/:id/tools lists a fresh session's (hldp export as HLDP_TOKEN's principal)
export { listedSpecs } from '../../sessions/index.js';
export { sandboxWarnings, workspaceWarnings } from './sandbox-warnings.js';
export { ExecutionTargets } from './execution-targets.js';
export { outcomeEvents } from './gateway-events.js';
export type { ApprovalAnswer, ApprovalRefusalCode, DecideOptions } from '../../policy/index.js';
