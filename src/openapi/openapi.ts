import { COMPONENT_SCHEMAS } from './openapi-schemas.js';
import { REJECTION_CODES } from './wire-errors.js';

const json = (schema: string) => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });
const answer = (description: string, schema: string) => ({ description, ...json(schema) });
const sessionId = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
// a client keeps the URL it was given for every request of its session (GET and DELETE too): /mcp?toolsets=repo,ops
const mcpToolsets = { name: 'toolsets', in: 'query', description: 'toolsets to enable when the session opens, comma-separated', schema: { type: 'string' } };
const errors = {
  '400': answer('malformed request: the message says what is wrong', 'Error'),
  '401': answer('missing or wrong bearer token', 'Error'),
  '413': answer('body over the size limit', 'Error'),
};

/** The OpenAPI 3.1 document of the HTTP API: what `GET /v1/openapi.json` serves and what request bodies are checked against. */
// a match asked in the seconds after a start, while the search index is still loading
const PREFER_WAIT = { name: 'Prefer', in: 'header', schema: { type: 'string', examples: ['wait=0'] }, description: 'wait=N (RFC 7240, seconds, at most 20, the default): how long a match waits for the search index while it is loading after a start before 503 SEARCH_INDEX_LOADING; wait=0 answers at once' };
const LOADING = {
  ...answer('the search index is still loading after the start and was not ready within the wait (SEARCH_INDEX_LOADING): ask again after Retry-After; calls by name work meanwhile', 'Error'),
  headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } },
};

// on every answer in a session that holds a toolset a rescan took away (review userX, X2); a restored /mcp connection's too
const TOOLSETS_GONE = {
  'X-HLDP-Toolsets-Gone': {
    description: "the toolsets the session holds that the registry no longer serves, comma-separated (e.g. 'ops'); absent when none. Each is told as gone, with the commit and why, by toolset list and GET /v1/sessions/{id}; toolset {action: disable, name} puts it down",
    schema: { type: 'string' },
  },
};

// in a session a meta-tool's refusal ({ok: false, tool, code, error}) comes with its code's status, beside what a
// registry tool's call answers with that status: each was documented without it (review userZ11, U11-17)
const META_REFUSAL_STATUSES = new Set(['400', '403', '404', '409', '422']);
function orMetaRefusal(responses: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => {
    const content = response['content'] as { 'application/json'?: { schema?: unknown } } | undefined;
    const schema = content?.['application/json']?.schema;
    if (!META_REFUSAL_STATUSES.has(status) || schema === undefined) return [status, response];
    return [status, { ...response, content: { 'application/json': { schema: { anyOf: [schema, { $ref: '#/components/schemas/MetaRefusal' }] } } } }];
  }));
}

/** The answers of `/v1/call`, each with the header a call in a session may carry. */
function inSession(responses: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, ['401', '413'].includes(status) ? response : { ...response, headers: { ...(response['headers'] as object | undefined), ...TOOLSETS_GONE } }]));
}

export function openApiDocument(version: string): Record<string, unknown> {
  return withQueryRefusals({
    openapi: '3.1.0',
    info: {
      title: 'brush-holder',
      version,
      description: 'A git-native registry and execution gateway for the tools of LLM agents. Every accepted call yields one stored receipt, raw. A path asked with a method it does not list here is answered 405 METHOD_NOT_ALLOWED with an Allow header naming the ones it takes.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/tools': {
        get: {
          operationId: 'listTools', summary: 'The index, one page at a time: valid tool definitions (or their summaries), and the problems found',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
            { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'group', in: 'query', schema: { type: 'string' }, description: 'only tools of this group' },
            { name: 'q', in: 'query', schema: { type: 'string' }, description: 'only tools whose name, display, intent, aliases or group hold every word (case-insensitive)' },
            { name: 'summary', in: 'query', schema: { enum: ['true', 'false'], default: 'false' }, description: 'true: names, titles and intents only, no schemas' },
          ],
          responses: { '200': answer('one page of the index', 'ToolList'), '400': errors['400'], '401': errors['401'] },
        },
      },
      '/v1/tools/{name}': {
        get: {
          operationId: 'getTool', summary: 'One tool definition by name or alias',
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': answer('the definition', 'ToolDefinition'), '404': answer('no such tool, with near names', 'ToolNotFound'), '409': answer('the tool is in the repository but its definition is broken', 'ToolBroken'), '401': errors['401'] },
        },
      },
      '/v1/match': {
        post: {
          operationId: 'match', summary: 'Intent → 1-3 candidates, or found: false with a suggestion; never runs anything. With X-HLDP-Session the match is the session\'s: ranked by its recent calls and recorded for hldp suggest examples, as tool_find there',
          parameters: [{ name: 'X-HLDP-Session', in: 'header', schema: { type: 'string' }, description: 'the session (POST /v1/sessions) the match is made in' }, PREFER_WAIT],
          requestBody: { required: true, ...json('MatchRequest') },
          responses: { '200': answer('candidates or found: false', 'MatchResult'), '404': answer('X-HLDP-Session names no session of this caller (SESSION_NOT_FOUND)', 'Error'), '503': LOADING, ...errors },
        },
      },
      '/v1/call': {
        post: {
          operationId: 'call', summary: '{tool, params} runs a registered tool; {intent, context} only matches. With X-HLDP-Session the call is made in that session, and the meta-tools (toolset, tool_find, tool_load, tool_call, read_skill, confirm) answer by name',
          parameters: [{ name: 'X-HLDP-Session', in: 'header', schema: { type: 'string' }, description: 'the session (POST /v1/sessions) the call is made in' }, PREFER_WAIT],
          requestBody: { required: true, ...json('CallRequest') },
          responses: inSession(orMetaRefusal({
            '200': { description: "the receipt of the call, whatever its outcome (ok true or false); or, for an intent, the match; or, in a session, a meta-tool's answer", content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Receipt' }, { $ref: '#/components/schemas/MatchResult' }, { $ref: '#/components/schemas/MetaAnswer' }] } } } },
            '202': answer('the call waits for a person (the policy or the tool\'s require_confirm): nothing ran; the request id, and a token where the caller may confirm it itself', 'ConfirmationRequired'),
            '403': answer("the tool is forbidden to this caller; nothing ran", 'Refused'),
            '404': answer('no tool of that name: {found: false} with near names', 'ToolNotFound'),
            '409': {
              description: 'nothing ran: the tool is in the repository but its definition is broken (TOOL_BROKEN, its diagnostics); or, in a session, the tool was reserved and its toolset is now enabled (CALL_NOT_RUN)',
              content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/ToolBroken' }, { $ref: '#/components/schemas/Substituted' }] } } },
            },
            '422': {
              description: 'params do not fit the schema (each offending param named, and the schema), or timeout_ms is longer than the tool and the gateway allow; nothing ran',
              content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/InvalidParams' }, { $ref: '#/components/schemas/TimeoutNotAllowed' }] } } },
            },
            '503': { ...answer('the store cannot be reached to make or use a confirmation: nothing ran (STORE_UNAVAILABLE); or, for an intent, the search index is still loading after the start (SEARCH_INDEX_LOADING)', 'Error'), headers: LOADING.headers },
            ...errors,
          })),
        },
      },
      '/v1/confirm': {
        post: {
          operationId: 'confirm', summary: 'Run exactly the call a confirmation token stands for (single use): the self-approval case of an approval request',
          requestBody: { required: true, ...json('ConfirmRequest') },
          responses: {
            '200': answer('the receipt', 'Receipt'),
            '409': { description: "unknown, used, expired or outdated token (nothing ran); a token presented at an instance that runs calls elsewhere than the one that filed its request (reason mismatch: nothing ran, the token stays good, the error names what differs and where to confirm it); or LEASE_LAPSED: the call ran, its receipt in the answer, but another process closed the request as interrupted first", content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/ConfirmationInvalid' }, { $ref: '#/components/schemas/LeaseLapsed' }] } } } },
            '422': answer('timeout_ms is longer than the tool and the gateway allow; nothing ran, the token is still good', 'TimeoutNotAllowed'),
            '503': answer('the store cannot be reached: nothing ran', 'Error'),
            ...errors,
          },
        },
      },
      '/v1/approvals': {
        get: {
          operationId: 'listApprovals', summary: 'Approval requests, newest first; a principal that decides none sees only its own; overdue ones are expired (EXPIRED receipt) first',
          parameters: [
            { name: 'status', in: 'query', description: 'all (or none given): every status', schema: { enum: ['pending', 'approved', 'denied', 'expired', 'cancelled', 'all'] } },
            { name: 'caller', in: 'query', schema: { type: 'string' } }, { name: 'tool', in: 'query', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
            { name: 'cursor', in: 'query', description: 'the next_cursor of the page before (opaque); not with offset', schema: { type: 'string', maxLength: 200 } },
            { name: 'offset', in: 'query', description: 'requests to skip, counted from the newest now (kept for existing clients; prefer cursor)', schema: { type: 'integer', minimum: 0, default: 0 } },
          ],
          responses: { '200': answer('one page', 'ApprovalPage'), '400': errors['400'], '401': errors['401'] },
        },
      },
      '/v1/approvals/{id}': {
        get: {
          operationId: 'getApproval', summary: 'One approval request and, once decided, its receipt (the call\'s, or the DENIED/EXPIRED/CANCELLED one); ?wait=S long-polls up to S seconds (at most 120) for the decision',
          parameters: [sessionId, { name: 'wait', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 120, default: 0 } }],
          responses: {
            '200': answer('the request and its receipt (null while pending)', 'ApprovalState'), '400': errors['400'], '404': answer('no such request that this principal may see', 'Error'), '401': errors['401'],
            '429': { ...answer('the receipt is long and the principal is already being sent 4 long receipts (TOO_MANY_READS): read one to its end first', 'Error'), headers: LOADING.headers },
            '503': { ...answer('the gateway holds as much long receipt text for clients still reading it as it may (RECEIPT_READS_BUSY)', 'Error'), headers: LOADING.headers },
          },
        },
      },
      '/v1/approvals/{id}/approve': {
        post: {
          operationId: 'approve', summary: 'Approve a pending request: exactly its call runs, once, and its receipt links the approval, the approver and the reason. The caller may not approve its own request unless its rule allows self-approval',
          parameters: [sessionId], requestBody: { required: false, ...json('ApprovalDecisionRequest') },
          responses: {
            '200': answer('the decided request and the receipt of the run', 'ApprovalState'),
            '202': answer('approved at an instance that runs calls elsewhere than the process that filed it (another workspace, sandbox, sandbox.hide, inherited environment or target): the decision is recorded and nothing ran yet (receipt null, approval.run null); the call runs once at a gateway with the request\'s settings — the one that filed it (filed_by: null unless the reader is an admin), when its sweep or its caller\'s wait next looks — whose receipt answers the caller (GET /v1/approvals/{id}?wait=); if none runs it before its expiry, it expires with an EXPIRED receipt saying so', 'ApprovalRunsElsewhere'),
            '403': answer('this principal may not decide it (APPROVAL_FORBIDDEN: self-approval, or not one of its approvers)', 'ApprovalRefused'),
            '404': answer('no such request (APPROVAL_NOT_FOUND)', 'ApprovalRefused'),
            '409': answer('already decided (APPROVAL_DECIDED), expired (APPROVAL_EXPIRED), other params, a timeout_ms given where the call does not run, or this very gateway filed it under settings it no longer has (restarted with others): its error names what changed — the settings\' values and the instances\' URLs to an admin only — and the request stays pending (APPROVAL_MISMATCH), or the registry moved or the caller may no longer call the tool, and the request was cancelled (APPROVAL_OUTDATED, with its CANCELLED receipt); nothing ran', 'ApprovalRefused'),
            '422': answer('timeout_ms is longer than the tool and the gateway allow; the request stays pending', 'ApprovalRefused'),
            '503': answer('the store cannot be reached: nothing was decided', 'ApprovalRefused'),
            ...errors,
          },
        },
      },
      '/v1/approvals/{id}/deny': {
        post: {
          operationId: 'deny', summary: 'Deny a pending request: a DENIED receipt with the approver and the reason; nothing runs',
          parameters: [sessionId], requestBody: { required: false, ...json('ApprovalDecisionRequest') },
          responses: {
            '200': answer('the decided request and its DENIED receipt', 'ApprovalState'), '403': answer('this principal may not decide it', 'ApprovalRefused'),
            '404': answer('no such request', 'ApprovalRefused'), '409': answer('already decided, expired, or other params', 'ApprovalRefused'), '503': answer('the store cannot be reached', 'ApprovalRefused'), ...errors,
          },
        },
      },
      '/v1/approvals/{id}/cancel': {
        post: {
          operationId: 'cancelApproval', summary: 'The caller (or an admin) withdraws its pending request: a CANCELLED receipt; nothing runs',
          parameters: [sessionId], requestBody: { required: false, ...json('ApprovalDecisionRequest') },
          responses: {
            '200': answer('the cancelled request and its CANCELLED receipt', 'ApprovalState'), '403': answer('not its caller nor an admin', 'ApprovalRefused'),
            '404': answer('no such request', 'ApprovalRefused'), '409': answer('already decided', 'ApprovalRefused'), '503': answer('the store cannot be reached', 'ApprovalRefused'), ...errors,
          },
        },
      },
      '/v1/rejections': {
        get: {
          operationId: 'listRejections', summary: 'Calls refused before they could run (unknown tool, invalid params, forbidden, deadline not allowed): caller, tool, params (secrets redacted), reason; newest first. A principal that decides nothing sees only its own',
          parameters: [
            { name: 'caller', in: 'query', schema: { type: 'string' } }, { name: 'tool', in: 'query', schema: { type: 'string' } }, { name: 'code', in: 'query', schema: { type: 'string', enum: [...REJECTION_CODES] } },
            { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }, { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
          ],
          responses: { '200': answer('one page', 'RejectionPage'), '400': errors['400'], '401': errors['401'] },
        },
      },
      '/v1/toolsets': { get: { operationId: 'listToolsets', summary: 'The toolsets of the index: name, one-line description, tools and groups (empty: the whole registry), hint', responses: { '200': answer('the toolsets', 'ToolsetList'), '401': errors['401'] } } },
      '/v1/skills': { get: { operationId: 'listSkills', summary: 'The skills of the index: name, trigger line, the toolset each leads to (bodies: read_skill)', responses: { '200': answer('the skills', 'SkillList'), '401': errors['401'] } } },
      '/v1/sessions': {
        post: {
          operationId: 'openSession', summary: 'Open an agent session; send its id as X-HLDP-Session on POST /v1/call',
          requestBody: { required: false, ...json('SessionRequest') },
          responses: { '201': answer('the session', 'Session'), '400': errors['400'], '403': answer('a toolset holding no tool the principal may use (TOOLSET_FORBIDDEN, with the available ones)', 'Error'), '404': answer('a toolset the registry does not have (TOOLSET_NOT_FOUND, with the available ones)', 'Error'), '401': errors['401'], '413': errors['413'] },
        },
      },
      '/v1/sessions/{id}': {
        get: { operationId: 'getSession', summary: 'A session: active toolsets and their deadlines, loaded tools, skill index', parameters: [sessionId], responses: { '200': answer('the session', 'Session'), '404': answer('no such session', 'Error'), '401': errors['401'] } },
        delete: { operationId: 'closeSession', summary: 'End a session', parameters: [sessionId], responses: { '204': { description: 'ended' }, '404': answer('no such session', 'Error'), '401': errors['401'] } },
      },
      '/v1/sessions/{id}/tools': {
        get: {
          operationId: 'sessionTools', summary: "The session's tools/list: the meta-tools and the visible registry tools",
          parameters: [sessionId, { name: 'format', in: 'query', schema: { enum: ['mcp', 'openai', 'anthropic'], default: 'mcp' } }],
          responses: { '200': answer('the listed tools', 'SessionTools'), '400': errors['400'], '404': answer('no such session', 'Error'), '401': errors['401'] },
        },
      },
      '/v1/sessions/{id}/tools/{name}': {
        get: {
          operationId: 'explainTool', summary: 'What one tool is for the session (visible, reserved, hidden, forbidden) and why',
          parameters: [sessionId, { name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': answer('its state and the reason', 'ToolVisibility'), '404': answer('no such session or tool', 'ToolVisibility'), '401': errors['401'] },
        },
      },
      '/v1/sessions/{id}/prompt': {
        get: {
          operationId: 'sessionPrompt', summary: "The session's prompt block: core tools, toolset catalogue, active tools, hidden tools and skills within 2% of the window (at most 16,000 characters)",
          parameters: [sessionId, { name: 'window_tokens', in: 'query', schema: { type: 'integer', minimum: 0 } }, { name: 'chars', in: 'query', schema: { type: 'integer', minimum: 0 } }],
          responses: { '200': answer('the block and what the budget cut', 'PromptBlock'), '400': errors['400'], '404': answer('no such session', 'Error'), '401': errors['401'] },
        },
      },
      '/v1/sessions/{id}/turn': {
        post: { operationId: 'endTurn', summary: 'The turn ended: turn-scoped toolsets and loaded tools go', parameters: [sessionId], responses: { '200': answer('the session after', 'Session'), '404': answer('no such session', 'Error'), '401': errors['401'] } },
      },
      '/v1/policies': {
        get: {
          operationId: 'listPolicies', summary: 'The policies of the served commit (its policy version), and the policy files that cannot be read: while there are any, every call is refused',
          responses: { '200': answer('the policies and the problems', 'PolicyList'), '401': errors['401'] },
        },
      },
      '/v1/scan': {
        post: {
          operationId: 'scan', summary: 'Rescan the repository now; a new commit swaps the index atomically',
          responses: { '200': answer('what the scan found', 'ScanResult'), '502': answer('the repository could not be read; the last good index is still served', 'Error'), '401': errors['401'], '429': { ...answer('the principal asked for 10 rescans in the last minute (TOO_MANY_SCANS): ask again after Retry-After', 'Error'), headers: LOADING.headers } },
        },
      },
      '/v1/receipts': {
        get: {
          operationId: 'listReceipts', summary: 'Stored receipts, newest first',
          parameters: [
            { name: 'ok', in: 'query', schema: { enum: ['true', 'false'] }, description: 'only successful (true) or failed (false) calls' },
            { name: 'tool', in: 'query', schema: { type: 'string' } },
            { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
            { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
          ],
          responses: {
            '200': answer('one page', 'ReceiptPage'), '400': errors['400'], '401': errors['401'],
            '429': { ...answer('the page is long (over 1 Mi characters) and the principal is already being sent 4 long receipts, by id, page or approval together (TOO_MANY_READS): read one to its end first', 'Error'), headers: LOADING.headers },
            '503': { ...answer('the gateway holds as much long receipt text for clients still reading it as it may (RECEIPT_READS_BUSY)', 'Error'), headers: LOADING.headers },
          },
        },
      },
      '/v1/receipts/verify': {
        get: {
          operationId: 'verifyReceipts', summary: 'Walk the receipt hash chain from its checkpoint to its head; name the first broken link (edited, deleted, inserted or reordered). Admins and approvers only; requests made while a walk runs share its report',
          responses: { '200': answer('the report: ok, or the first broken seq and why', 'ChainReport'), '401': errors['401'], '403': answer('the principal is neither an admin nor an approver (ROLE_REQUIRED): the walk reads every receipt', 'Error') },
        },
      },
      '/v1/events': {
        get: {
          operationId: 'events', summary: 'The event stream (Server-Sent Events): receipt.stored, call.rejected, approval.requested, approval.resolved, scan.completed, scan.failed, definitions.broken; each with an id, resumable with Last-Event-ID from a bounded backlog, else a reset event; an admin gets every event, an approver every event but definitions.broken (its files and errors are an admin\'s), any other principal the scan events and those of its own calls',
          parameters: [
            { name: 'Last-Event-ID', in: 'header', schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'resume after this event (EventSource sends it when it reconnects)' },
            { name: 'after', in: 'query', schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'the same, for clients that cannot set headers (as hldp://events?after= takes it); the header wins when both are sent' },
            { name: 'last_event_id', in: 'query', schema: { type: 'string', pattern: '^[0-9]+$' }, description: "the same as after (not with it)" },
            { name: 'types', in: 'query', schema: { type: 'string' }, description: "comma-separated event types to receive, 'failures' for every failure; default all" },
          ],
          responses: {
            '200': { description: 'text/event-stream: frames `id`, `event` (the type, or `reset`), `data` (JSON {id, type, at, data})', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            '400': errors['400'], '401': errors['401'],
          },
        },
      },
      '/v1/receipts/{id}': {
        get: {
          operationId: 'getReceipt', summary: 'One stored receipt',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': answer('the receipt', 'Receipt'), '404': answer('no receipt with that id', 'Error'), '401': errors['401'],
            '429': { ...answer('the principal is already being sent 4 long receipts (TOO_MANY_READS): read one to its end first', 'Error'), headers: LOADING.headers },
            '503': { ...answer('the gateway holds as much long receipt text for clients still reading it as it may (RECEIPT_READS_BUSY)', 'Error'), headers: LOADING.headers },
          },
        },
      },
      '/v1/hooks/forgejo': {
        post: {
          operationId: 'forgejoWebhook', summary: 'Forgejo push webhook: answers at once and rescans in the background',
          security: [],
          parameters: [
            { name: 'X-Forgejo-Signature', in: 'header', required: true, schema: { type: 'string' }, description: 'hex HMAC-SHA256 of the raw body with the webhook secret' },
            { name: 'X-Forgejo-Event', in: 'header', required: true, schema: { type: 'string' }, description: 'the event (only push rescans); a delivery without it is 400 (X-Gitea-Event and X-GitHub-Event are read too)' },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '202': answer('accepted', 'WebhookAccepted'), '400': answer('a signed body that is not a JSON object (MALFORMED_JSON, INVALID_REQUEST): the webhook\'s content type is not application/json', 'Error'), '401': answer('missing or wrong signature (a missing or malformed signature header is answered before any body is read)', 'Error'), '404': answer('webhooks are off: no webhook secret configured (answered before any body is read)', 'Error'), '413': errors['413'], '503': { ...answer('8 webhook bodies are being read already (WEBHOOKS_BUSY): send again after Retry-After', 'Error'), headers: LOADING.headers } },
        },
      },
      '/v1/openapi.json': { get: { operationId: 'openApi', summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } } } },
      '/healthz': { get: { operationId: 'health', summary: 'Liveness, the index being served (stale, last scan error) and whether the store answers', security: [], responses: { '200': answer('serving', 'Health') } } },
      '/mcp': {
        post: { operationId: 'mcpPost', parameters: [mcpToolsets], summary: 'MCP over Streamable HTTP: JSON-RPC requests (an initialize request opens a session, Mcp-Session-Id)', responses: { '200': { description: 'JSON-RPC response or an SSE stream', headers: TOOLSETS_GONE }, '400': { description: 'no session, or not a JSON-RPC request' }, '401': errors['401'], '404': { description: 'the session is not open (ended, evicted, restarted): initialize again' } } },
        get: { operationId: 'mcpStream', parameters: [mcpToolsets], summary: 'MCP: the session\'s server-sent event stream (tools/list_changed)', responses: { '200': { description: 'text/event-stream' }, '400': { description: 'no Mcp-Session-Id' }, '401': errors['401'], '404': { description: 'the session is not open' } } },
        delete: { operationId: 'mcpClose', parameters: [mcpToolsets], summary: 'MCP: end the session', responses: { '200': { description: 'ended' }, '400': { description: 'no Mcp-Session-Id' }, '401': errors['401'], '404': { description: 'the session is not open' } } },
      },
      '/metrics': { get: { operationId: 'metrics', summary: 'Prometheus text format', responses: { '200': { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, '401': errors['401'], '403': answer('the principal is not an admin, an approver or a metrics principal (ROLE_REQUIRED): the metrics count every caller\'s calls', 'Error') } } },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: "a principal's token (principals in the config, or api_token / HLDP_API_TOKEN); required when any is configured" } },
      schemas: COMPONENT_SCHEMAS,
    },
  });
}

/** Every route refuses a query parameter it does not list, or one given twice (400 INVALID_REQUEST): each operation says so. */
function withQueryRefusals(document: Record<string, unknown>): Record<string, unknown> {
  for (const [route, operations] of Object.entries(document['paths'] as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      operation.responses['400'] ??= answer('a query parameter the route does not take, or one given twice: the message names the ones it takes', 'Error');
      // every POST reads its body as JSON first (an empty one too): what is not is refused before the route looks at it
      if (method === 'post' && !OWN_BODIES.has(route)) {
        operation.responses['415'] ??= answer('the body is not JSON (UNSUPPORTED_MEDIA_TYPE): send it with Content-Type: application/json, UTF-8, not compressed', 'Error');
        operation.responses['413'] ??= errors['413'];
      }
      const tooMany = TOO_MANY[`${method} ${route}`];
      if (tooMany !== undefined) operation.responses['429'] ??= answer(tooMany, 'Error');
    }
  }
  return document;
}

// the routes that read their body themselves: JSON-RPC's errors on /mcp, the forge's signed body on the webhook
const OWN_BODIES = new Set(['/mcp', '/v1/hooks/forgejo']);

// what a caller is refused for holding too much at once (review userU, F4: sent, and listed by no operation)
const TOO_MANY: Record<string, string> = {
  'post /v1/call': 'the caller has max_calls_in_flight_per_caller calls running (TOO_MANY_CALLS), or too many approval requests waiting (TOO_MANY_PENDING): nothing ran; the message says which to wait for',
  'post /v1/confirm': 'the caller has max_calls_in_flight_per_caller calls running (TOO_MANY_CALLS): nothing ran',
  'get /v1/events': 'the principal has 16 event streams open (TOO_MANY_STREAMS): close one; a stream resumes with Last-Event-ID',
  'get /v1/approvals/{id}': 'the principal already waits on 16 approval requests with ?wait= (TOO_MANY_WAITS): let one end, or ask without wait',
};
