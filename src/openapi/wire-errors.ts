/**
 * Every error code the gateway's HTTP API answers with: its status and how to fix it. The OpenAPI
 * `Error` schema enumerates these codes, and a test fails when a route sends a code that is not here.
 */
export const WIRE_ERRORS = {
  MALFORMED_JSON: { status: 400, fix: 'send a body that is valid JSON; the message names the position where it stopped being JSON' },
  INVALID_REQUEST: { status: 400, fix: 'send the fields the route documents (GET /v1/openapi.json); the message names each problem' },
  NESTING_TOO_DEEP: { status: 400, fix: 'send JSON nested at most 64 levels deep: flatten the params' },
  UNAUTHORIZED: { status: 401, fix: "send Authorization: Bearer <a principal's token> (principals in the config, or the gateway's api_token)" },
  BAD_SIGNATURE: { status: 401, fix: 'sign the raw body with HMAC-SHA256 and the webhook secret, hex, in X-Forgejo-Signature' },
  FORBIDDEN_HOST: { status: 403, fix: 'address a loopback server as localhost, 127.0.0.1 or [::1], or the host of its listen.public_url; a TLS proxy on the same host keeps the Host it was asked for and the gateway names that address in listen.public_url (with credentials)' },
  NOT_FOUND: { status: 404, fix: 'use a route of GET /v1/openapi.json' },
  METHOD_NOT_ALLOWED: { status: 405, fix: 'use a method the Allow header (and the route in GET /v1/openapi.json) lists: the path exists, not with this method' },
  TOOL_NOT_FOUND: { status: 404, fix: "call a tool the index has (GET /v1/tools), one of the near names, or match by intent; or write the tool's TOOL.hdlp" },
  RECEIPT_NOT_FOUND: { status: 404, fix: 'use a receipt id from GET /v1/receipts or from the answer of a call' },
  SESSION_NOT_FOUND: { status: 404, fix: 'open a session with POST /v1/sessions (sessions expire when idle) and send its id' },
  SESSION_REQUIRED: { status: 400, fix: 'open a session with POST /v1/sessions and send its id as X-HLDP-Session: the meta-tools (toolset, tool_find, tool_load, tool_call, read_skill, confirm) are answered only in one; POST /v1/match and POST /v1/confirm need none' },
  TOOLSET_NOT_FOUND: { status: 404, fix: 'name a toolset the index has (GET /v1/toolsets; the message lists them), or commit its toolsets/<name>/TOOLSET.hdlp' },
  TOOLSET_FORBIDDEN: { status: 403, fix: "name a toolset holding a tool you may use (the message lists them), or ask whoever keeps the gateway to add its tools to your principal's tools" },
  SKILL_NOT_FOUND: { status: 404, fix: 'name a skill the index has (GET /v1/skills; the message lists them), or commit its skills/<name>/SKILL.md' },
  ROLE_REQUIRED: { status: 403, fix: 'ask a principal with a role the message names (admin or approver; for GET /metrics also metrics): the route reads every caller\'s records' },
  TOOL_FORBIDDEN: { status: 403, fix: 'nothing the caller can do: the reason names the rule (sessions.deny in the config); ask whoever keeps the gateway' },
  CALL_NOT_RUN: { status: 409, fix: "the tool was reserved and its toolset is now enabled: make the same call again to run it (or set sessions.reserved_calls: run)" },
  WEBHOOKS_OFF: { status: 404, fix: 'set webhook_secret in the config (or HLDP_WEBHOOK_SECRET) and the same secret in Forgejo' },
  TOOL_BROKEN: { status: 409, fix: "fix the TOOL.hdlp at the file:line:col the diagnostics name (hldp validate), push, and rescan" },
  APPROVAL_NOT_FOUND: { status: 404, fix: 'use a request id from the 202 that answered the call, or from GET /v1/approvals (a principal sees its own requests; approvers see all)' },
  APPROVAL_FORBIDDEN: { status: 403, fix: "ask a principal the request's rule names as approver (the message says which); a caller approves its own request only where the rule sets self_approval: true" },
  APPROVAL_DECIDED: { status: 409, fix: 'nothing to do: it was decided once already (the message says how); GET /v1/approvals/:id shows its receipt' },
  APPROVAL_EXPIRED: { status: 409, fix: 'call the tool again for a new request, and decide that one before it expires (confirmation_ttl_ms, or the rule\'s expires_in_ms)' },
  APPROVAL_MISMATCH: { status: 409, fix: 'decide exactly the call the request shows (its params); for other params, call the tool again. When it says this gateway\'s settings changed since it filed the request, deny it and let the caller call again; a confirmation token is confirmed where the call runs (rule.filed_by.url, for an admin to read as the settings\' values are, or an instance with the same settings); a one-shot CLI that cannot tell where the request runs leaves it to a gateway' },
  APPROVAL_OUTDATED: { status: 409, fix: "the tool's definition or the policies changed since the request was made (another commit does not outdate it), or its caller may no longer call the tool, so it was cancelled: its caller must call the tool again (with rights to it)" },
  LEASE_LAPSED: { status: 409, fix: "do not run it again: the call ran (its receipt is in the answer), but this gateway process was held up past approvals.run_lease_ms and another closed the request as interrupted meanwhile; GET /v1/approvals/:id shows the receipt that resolves it (resolved_by)" },
  CONFIRMATION_INVALID: { status: 409, fix: 'call the tool again for a new token, and confirm that one before it expires' },
  PAYLOAD_TOO_LARGE: { status: 413, fix: 'send a body under max_body_bytes (1 MiB by default)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, fix: 'send JSON with Content-Type: application/json (UTF-8, not compressed)' },
  INVALID_PARAMS: { status: 422, fix: "send params that fit the tool's params_schema; the problems name each param" },
  TIMEOUT_NOT_ALLOWED: { status: 422, fix: "ask for a timeout_ms of at most allowed_ms (the tool's constraints.max_timeout_ms, default its timeout_ms, within the gateway's max_call_timeout_ms), or send none" },
  TOO_MANY_STREAMS: { status: 429, fix: 'close an event stream of the same principal first (an agent may hold 16 open at once); a stream resumes where it left off with Last-Event-ID' },
  TOO_MANY_WAITS: { status: 429, fix: 'let one of your waits on GET /v1/approvals/:id?wait= end first (an agent may hold 16 at once), or ask without wait' },
  TOO_MANY_PENDING: { status: 429, fix: 'wait for your pending approval requests to be decided, or cancel one (POST /v1/approvals/:id/cancel); one caller may have approvals.max_pending_per_caller (20) waiting at once' },
  TOO_MANY_CALLS: { status: 429, fix: 'wait for one of your calls to end first; one caller may have max_calls_in_flight_per_caller (32) calls running at once, and a call whose caller hung up is cancelled' },
  TOO_MANY_READS: { status: 429, fix: "read one of the long receipts you are being sent (GET /v1/receipts/:id, a page of GET /v1/receipts, GET /v1/approvals/:id, the console's raw fields, approval_wait's answers) to its end first: one principal is sent at most 4 at once" },
  TOO_MANY_SCANS: { status: 429, fix: 'ask again after Retry-After: one principal may ask for 10 rescans (POST /v1/scan) a minute; a push is found meanwhile by the webhook or the poll' },
  WEBHOOKS_BUSY: { status: 503, fix: 'send the delivery again after Retry-After: the gateway reads 8 webhook bodies at once at most; the repository poll finds the push meanwhile' },
  RECEIPT_READS_BUSY: { status: 503, fix: 'ask again after Retry-After: the gateway holds as much long receipt text for clients still reading it as it may (512 Mi characters)' },
  INTERNAL_ERROR: { status: 500, fix: "a bug in the gateway: its log has the details; the call's receipt, if it ran, is stored" },
  SCAN_FAILED: { status: 502, fix: 'make the repository reachable (URL, token, ref); the last good index is served meanwhile' },
  SEARCH_INDEX_LOADING: { status: 503, fix: 'ask again after Retry-After (a second): the server has just started and is still loading its search index; calls by name, GET /v1/tools and /healthz answer meanwhile, and GET /healthz says matching: ready when a match will be answered' },
  STORE_UNAVAILABLE: { status: 503, fix: 'bring the store back (store.url: PostgreSQL reachable, accepting connections); GET /healthz says ok again when it answers, then call again' },
} as const satisfies Record<string, { status: number; fix: string }>;

/** A code of {@link WIRE_ERRORS}. */
export type WireErrorCode = keyof typeof WIRE_ERRORS;

/** The codes, for the OpenAPI `Error` schema. */
export const WIRE_ERROR_CODES = Object.keys(WIRE_ERRORS) as WireErrorCode[];

/** The codes a rejected call is recorded with (gateway/service/rejection-step.ts): what `GET /v1/rejections?code=` filters on. */
export const REJECTION_CODES = ['TOOL_NOT_FOUND', 'TOOL_BROKEN', 'INVALID_PARAMS', 'TOOL_FORBIDDEN', 'TIMEOUT_NOT_ALLOWED'] as const satisfies readonly WireErrorCode[];

/** A code of {@link REJECTION_CODES}. */
export type RejectionCode = (typeof REJECTION_CODES)[number];
