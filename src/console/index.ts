// The console for people: server-rendered views of failures, receipts, approvals, the registry and sessions, and its security.
export { consoleRouter, type ConsoleOptions } from './console-router.js';
export type { ApprovalDecision, ConsoleBackend, ConsoleCallSummary, ConsoleRawField, ConsoleReceiptExcerpt, ConsolePrincipal, ConsoleReceiptPage, ConsoleReceiptQuery, ConsoleSessionSummary, PendingApproval } from './console-backend.js';
export { consolePrincipal } from './console-principal.js';
export { consoleSessionKey } from './session-key.js';
export { CONTENT_SECURITY_POLICY, securityHeaders } from './security.js';
export { escapeHtml, html, raw, Html } from './html.js';
export { LIST_BYTES, SEARCH_BYTES, SEARCH_ROWS } from './views/failures.js';
