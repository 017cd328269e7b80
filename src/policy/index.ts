// Principals, access rules, approval rules and approval requests: who may see and run what, what a call needs before it runs, and how a person decides it.
export { API_TOKEN_PRINCIPAL, hashToken, LOCAL_PRINCIPAL, Principals, type Principal, type PrincipalConfig } from './principals.js';
export { accessRights, type AccessLayer, type AccessSubject } from './access-rights.js';
export { decidePolicy, deciderProblem, DEFAULT_APPROVERS, type DecisionRights, type PolicyDecision } from './approval-rules.js';
export { PolicySet, type RuleRef } from './policy-set.js';
export { withPolicyProblems } from './policy-problems.js';
export { approvalMarkers, approvalNeed } from './approval-markers.js';
export { firstOutrightDeny, outrightDeny } from './outright-deny.js';
export { compileCondition, modeOf, type ConditionMode, type ValueTest } from './param-conditions.js';
export { ApprovalDesk } from './approval-desk.js';
export { approvalSeenBy, readsPlaces, receiptSeenBy } from './run-place.js';
export { otherRegistry, servedRegistry } from './served-registry.js';
export { approvalPosition } from './approval-page.js';
export type { ApprovalAnswer, ApprovalRefusalCode, ApprovalRequested, ConfirmationRequired, ConfirmOutcome, LeaseLapsed } from './approval-answer.js';
export type { ApprovalHost, ApprovalRegistry, DecideOptions } from './approval-host.js';
export { unrunReceipt, type UnrunCall } from './unrun-receipt.js';
export { policyWarnings, undecidableApprovals } from './policy-warnings.js';
export { deputyTokenWarnings, type ApiCredentials } from './deputy-token.js';
export { changedSince, judgedAgainst, type JudgedIndex } from './judged-against.js';
