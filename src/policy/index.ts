// Principals, access rules and approval rules: who may see and run what, and what a call needs before it runs.
export { API_TOKEN_PRINCIPAL, hashToken, LOCAL_PRINCIPAL, Principals, type Principal, type PrincipalConfig } from './principals.js';
export { accessRights, type AccessLayer, type AccessSubject } from './access-rights.js';
export { decidePolicy, deciderProblem, DEFAULT_APPROVERS, type DecisionRights, type PolicyDecision } from './approval-rules.js';
export { PolicySet, type RuleRef } from './policy-set.js';
export { compileCondition, modeOf, type ConditionMode, type ValueTest } from './param-conditions.js';
