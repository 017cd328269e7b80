// What every HTTP server of brush-holder shares at its edge: bearer auth, the one error handler, a request log, the
// routes of the OpenAPI document (which method each serves).
export { bearerAuth, bearerMatches, secretsEqual } from './bearer-auth.js';
export { documentedRoutes, routeOf, type DocumentedRoute } from './documented-routes.js';
export { errorHandler, notFoundHandler, requestLog } from './error-handler.js';
export { expressServer } from './express-server.js';
export { JSON_RPC, jsonRpcBodyErrors, sendJsonRpcError } from './json-rpc-error.js';
export { LONG_TEXT_UNITS, sendJsonInPieces, sendJsonText } from './json-in-pieces.js';
export { closeIdleConnectionsUnread, KEEP_ALIVE_ADVERTISED_MS, KEEP_ALIVE_GRACE_MS } from './keep-alive.js';
export { allowedMethods, methodGuard } from './method-guard.js';
export { forwardedReason, forwardingHeader, loopbackHostGuard } from './loopback.js';
export { notTheOperator, peerUid } from './peer-user.js';
export { holdForAnswer, holdForReader, RECEIPT_READS, ReceiptReads, receiptReadsOf, whileAnswering } from './receipt-reads.js';
