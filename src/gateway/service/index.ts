// The gateway service: registry (index + matcher, swapped atomically), the call path, confirmations and rescans.
export { Gateway, type GatewayObserver, type GatewayOptions, type Registry, type RescanResult } from './gateway.js';
export type { CallOutcome, ConfirmationRequired } from './call-outcome.js';
