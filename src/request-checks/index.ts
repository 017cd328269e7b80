// What the gateway's HTTP API checks of a request before a route serves it: the principal its bearer token stands for, its query string and its body, against the OpenAPI document.
export { emptyBody, matchBodyCheckerSteps, validateBody } from './body-validator.js';
export { principalAuth, principalOf, requestPrincipal } from './principal-auth.js';
export { queryGuard } from './query-guard.js';
export { integerParameter, receiptQuery, toolListQuery, type ToolListQuery } from './query-parameters.js';
