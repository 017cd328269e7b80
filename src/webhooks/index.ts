// The push webhook (Forgejo, Gitea, GitHub): checked before its body is read, then a rescan asked of the gateway
export { webhookRouter, type RescanRequests } from './webhook-route.js';
