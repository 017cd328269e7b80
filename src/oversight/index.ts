// Approval requests and rejected calls as people and agents read and decide them over the gateway (the /v1/approvals and /v1/rejections routes, approval waits, the console's back-end).
export { approvalRouter } from './approval-routes.js';
export { waitForApproval } from './approval-waits.js';
export { consoleBackend } from './console-backend.js';
