/** JSON Schemas of the HTTP API's bodies: the OpenAPI document's components, and what requests are validated with. */
import { readFileSync } from 'node:fs';
import { LIMIT_SCHEMA } from '../core/index.js';
import { WIRE_ERROR_CODES } from './wire-errors.js';
import { POLICY_SCHEMAS } from './openapi-policy-schemas.js';

// the receipt's own JSON Schema (same depth from src/openapi and dist/openapi)
const RECEIPT_SCHEMA_URL = new URL('../../schemas/receipt.schema.json', import.meta.url);

const nullableString = { type: ['string', 'null'] };
const stringList = { type: 'array', items: { type: 'string' } };

const Diagnostic = {
  type: 'object',
  required: ['file', 'line', 'column', 'severity', 'code', 'message'],
  properties: {
    file: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' },
    severity: { enum: ['error', 'warning'] }, code: { type: 'string' }, message: { type: 'string' },
  },
};

const ON_DEMAND = { const: true, description: 'in GET /v1/tools and GET /v1/tools/{name} only, and only when true: sessions.on_demand reserves the tool (by its name, an alias or its group), so a session lists it once a toolset names it or tool_load brings it, not at once' };

const ToolDefinition = {
  type: 'object',
  description: 'A validated TOOL.hdlp, params_schema turned into a full JSON Schema.',
  required: ['name', 'display', 'intent', 'method', 'executor', 'params_schema', 'constraints', 'author', 'created', 'why', 'aliases', 'examples', 'source'],
  properties: {
    name: { type: 'string' }, display: { type: 'string' }, intent: { type: 'string' }, method: { type: 'string' },
    executor: { enum: ['shell', 'gatekeeper', 'hldp-api', 'git-forgejo', 'mcp'] },
    params_schema: { type: 'object' },
    constraints: {
      type: 'object', required: ['timeout_ms', 'max_output_bytes', 'require_confirm'],
      properties: { timeout_ms: { type: 'integer' }, max_timeout_ms: { type: 'integer' }, max_output_bytes: { type: 'integer' }, require_confirm: { type: 'boolean' } },
    },
    author: { type: 'string' }, created: { type: 'string' }, why: { type: 'string' },
    aliases: stringList, examples: stringList, group: { type: 'string' },
    source: { type: 'object', required: ['path', 'oid'], properties: { path: { type: 'string' }, oid: { type: 'string' } } },
    on_demand: ON_DEMAND,
  },
};

const Stale = { type: 'object', required: ['reason', 'since'], properties: { reason: { type: 'string' }, since: { type: 'string' } } };

const NearMiss = { type: 'object', required: ['name', 'display', 'score'], properties: { name: { type: 'string' }, display: { type: 'string' }, score: { type: 'number' } } };

const Candidate = {
  type: 'object',
  required: ['name', 'display', 'intent', 'score', 'matched', 'params_schema'],
  properties: {
    name: { type: 'string' }, display: { type: 'string' }, intent: { type: 'string' }, score: { type: 'number' },
    matched: stringList, params_schema: { type: 'object', description: 'shrunk as tools/list shrinks it when over 5,000 bytes of JSON (first sentences, no $defs, …): then schema_shrunk is true; a call is validated against the whole' },
    schema_shrunk: { type: 'boolean', enum: [true], description: 'present when params_schema was shrunk to fit an answer' },
    stage: { type: 'string', enum: ['model'], description: 'present when only the configured model named this tool (the words did not): added after the words\' candidates, never in place of them' },
  },
};

// present only on an answer made while the Chinese-English dictionary was still being read (a second or so after start)
const INCOMPLETE = { type: 'string', description: 'why asking again soon may answer differently: the Chinese words were matched only as written while the dictionary was being read, or the model stage was not asked (the caller\'s per_principal_per_minute or the stage\'s max_concurrent was reached)' };

// a broken definition's access: block cannot be read, so its file and errors are an admin's to see (review Z2-3)
const ERRORS_WHO = 'the problems that kept definitions from being served, file:line:col; to an admin only (every caller where no principal is configured): anyone else gets [] and errors_withheld';
const WARNINGS_WHO = 'problems that did not keep a definition from being served; to anyone but an admin, none about a file that holds an error';

const BrokenMatch = {
  type: 'object', required: ['name', 'path', 'error'],
  description: "a tool the repository has whose TOOL.hdlp is broken, so it is not served, and whose folder name fits the intent: fix it rather than writing a new one; never callable as it is",
  properties: {
    name: { type: 'string', description: 'the folder name, tools/<name>/ (the broken definition is not read for its own)' },
    path: { type: 'string', description: 'tools/<name>/TOOL.hdlp' },
    error: { type: 'string', description: 'the first error as file:line:col: message (bounded, hidden characters escaped), and how many more' },
  },
};
const BROKEN = { type: 'array', maxItems: 3, items: { $ref: '#/components/schemas/BrokenMatch' }, description: 'on found: false or confidence low only: broken tools that would fit; with found: false the suggestion says to fix the first. Named only to a caller every rights layer may tell of it by its folder name alone (an admin, and one sessions.deny cannot be keeping from it), since its access block cannot be read' };

const CONTESTED = {
  type: 'array', maxItems: 2, minItems: 1,
  description: "the first candidate takes another candidate's own requests: an example or alias of `of`, asked of the registry, answers `tool` first (a definition copying a reviewed tool's wording, which `hldp validate` warns as INTENT_OVERLAP); the answer is then confidence low: ask which is meant rather than run the first",
  items: { type: 'object', required: ['tool', 'of', 'text'], properties: { tool: { type: 'string' }, of: { type: 'string' }, text: { type: 'string' } } },
};

const MatchResult = {
  oneOf: [
    {
      type: 'object', required: ['found', 'confidence', 'stage', 'candidates'],
      properties: {
        found: { const: true },
        confidence: { enum: ['high', 'low'], description: 'low: the candidates match part of the intent (stage vector: only its meaning); check that one fits before calling it' },
        stage: { enum: ['lexical', 'vector', 'model'], description: 'which stage named the candidates (vector: the words found nothing and the nearest tool in meaning stands out from the registry, or found only near misses and the first of them is also the nearest in meaning, or the first tool found through words WordNet relates to the request\'s is, always low; model: the configured matcher.model)' },
        candidates: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Candidate' } },
        incomplete: INCOMPLETE,
        broken: BROKEN,
        contested: CONTESTED,
      },
    },
    { type: 'object', required: ['found', 'suggestion', 'near'], properties: { found: { const: false }, suggestion: { type: 'string' }, near: { type: 'array', maxItems: 3, items: { $ref: '#/components/schemas/NearMiss' } }, incomplete: INCOMPLETE, broken: BROKEN } },
  ],
};

// the receipt's schema is the one in schemas/, without the keys that make it a document of its own
const { $schema: _schema, $id: _id, ...Receipt } = JSON.parse(readFileSync(RECEIPT_SCHEMA_URL, 'utf8')) as Record<string, unknown>;

const Error = {
  type: 'object', required: ['code', 'error'],
  description: 'A refused request: code (one of the table in src/openapi/wire-errors.ts) and a message that says what to send instead',
  properties: { code: { enum: WIRE_ERROR_CODES }, error: { type: 'string' } },
};

/** Every schema the document names under `components/schemas`. */
export const COMPONENT_SCHEMAS = {
  ...POLICY_SCHEMAS,
  Error,
  Diagnostic,
  Stale,
  ToolDefinition,
  ToolSummary: {
    type: 'object', required: ['name', 'display', 'intent', 'executor', 'method', 'aliases'],
    description: 'A tool without its schemas and executor details (summary=true)',
    properties: {
      name: { type: 'string' }, display: { type: 'string' }, intent: { type: 'string' }, executor: { type: 'string' }, method: { type: 'string' },
      aliases: stringList, group: { type: 'string' }, on_demand: ON_DEMAND,
    },
  },
  ErrorsWithheld: {
    type: 'object', required: ['files', 'note'],
    description: 'to a caller who is not an admin, when principals are configured and some definitions failed to load: how many files, in place of their errors',
    properties: { files: { type: 'integer', minimum: 1 }, note: { type: 'string', description: '"N definitions failed to load; an administrator can see which"' } },
  },
  ToolList: {
    type: 'object', required: ['commit', 'total', 'limit', 'offset', 'next_offset', 'tools', 'errors', 'warnings'],
    properties: {
      commit: { type: 'string' }, stale: { $ref: '#/components/schemas/Stale' },
      total: { type: 'integer', description: 'tools that pass the filters, over all pages' },
      limit: { type: 'integer' }, offset: { type: 'integer' }, next_offset: { type: ['integer', 'null'] },
      tools: { type: 'array', items: { anyOf: [{ $ref: '#/components/schemas/ToolDefinition' }, { $ref: '#/components/schemas/ToolSummary' }] } },
      errors: { type: 'array', items: { $ref: '#/components/schemas/Diagnostic' }, description: ERRORS_WHO },
      warnings: { type: 'array', items: { $ref: '#/components/schemas/Diagnostic' }, description: WARNINGS_WHO },
      errors_withheld: { $ref: '#/components/schemas/ErrorsWithheld' },
    },
  },
  NearMiss,
  Candidate,
  BrokenMatch,
  MatchResult,
  MatchRequest: {
    type: 'object', additionalProperties: false, required: ['intent'],
    properties: {
      intent: { type: 'string', minLength: 1, maxLength: 4000, description: 'what the agent wants done, in any language' },
      context: { $ref: '#/components/schemas/MatchContext' },
      limit: LIMIT_SCHEMA,
    },
  },
  MatchContext: {
    type: 'object',
    description: 'what the agent knows about the situation (spec §1); tools and group move the tools they point at up among those the intent matches. Other keys are accepted and ignored.',
    properties: {
      tools: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 256 }, description: 'tools the agent expects to need, by name or alias' },
      group: { type: 'string', minLength: 1, maxLength: 256, description: "the group the agent is working in (a tool's group)" },
    },
  },
  CallRequest: {
    type: 'object', additionalProperties: false,
    description: '{tool, params, timeout_ms?} runs the tool; {intent, context?, limit?} only matches and never runs anything; a field of one form beside the other is a 400 naming it.',
    properties: {
      tool: { type: 'string', minLength: 1, maxLength: 256 },
      params: { type: 'object', default: {} },
      intent: { type: 'string', minLength: 1, maxLength: 4000 },
      context: { $ref: '#/components/schemas/MatchContext' },
      limit: LIMIT_SCHEMA,
      timeout_ms: { type: 'integer', minimum: 1, description: "this call's deadline in ms, within the tool's constraints.max_timeout_ms (default its timeout_ms) and the gateway's max_call_timeout_ms" },
    },
    oneOf: [
      { required: ['tool'], not: { anyOf: [{ required: ['intent'] }, { required: ['context'] }, { required: ['limit'] }] } },
      { required: ['intent'], not: { anyOf: [{ required: ['tool'] }, { required: ['params'] }, { required: ['timeout_ms'] }] } },
    ],
  },
  ConfirmRequest: {
    type: 'object', additionalProperties: false, required: ['token'],
    properties: { token: { type: 'string', minLength: 1, maxLength: 256 }, timeout_ms: { type: 'integer', minimum: 1, description: 'the deadline of the confirmed run, as in CallRequest' } },
  },
  Receipt,
  ConfirmationRequired: {
    type: 'object', required: ['status', 'id', 'tool', 'params', 'commit', 'expires_at', 'reason', 'approvers', 'message'],
    description: 'the call waits for a person: an approval request, bound to this exact call; GET /v1/approvals/{id}?wait=30 waits for its receipt',
    properties: {
      status: { enum: ['confirmation_required', 'approval_required'], description: 'confirmation_required: the caller may run it itself with token; approval_required: an approver decides' },
      id: { type: 'string' }, tool: { type: 'string' }, params: { type: 'object' }, commit: { type: 'string' },
      token: { type: 'string', description: 'single use; only where the caller may approve its own request' }, expires_at: { type: 'string' },
      reason: { type: 'string', description: 'why it waits: the rule (policies/x.hdlp:line:col) or the tool\'s require_confirm' }, approvers: { type: 'string' }, message: { type: 'string' },
      already_pending: { const: true, description: 'the same call (caller, session, tool, params, binding, rule) waits already as request id: nothing new was filed; token, if any, replaces the one given before' },
      undecidable: { type: 'string', description: 'set when no one can decide the request (its caller may not, and no other principal is of its approvers): why, and what to configure; it can only expire, so waiting for it is vain' },
    },
  },
  ToolNotFound: {
    type: 'object', required: ['found', 'code', 'error', 'near', 'suggestion'],
    properties: {
      found: { const: false }, code: { const: 'TOOL_NOT_FOUND' }, error: { type: 'string' }, near: { type: 'array', items: { $ref: '#/components/schemas/NearMiss' } }, suggestion: { type: 'string' },
      removed_at: { type: 'string', description: 'set when a recent rescan removed the tool: the commit it went at (the suggestion then does not say to write it)' },
      served_at: { type: 'string', description: 'with removed_at: the last commit that served the tool' },
    },
  },
  ToolBroken: {
    type: 'object', required: ['found', 'code', 'tool', 'error', 'diagnostics'],
    description: "the tool's folder is in the repository but its definition is broken: its diagnostics say where and why",
    properties: {
      found: { const: false }, code: { const: 'TOOL_BROKEN' }, tool: { type: 'string' }, error: { type: 'string' },
      diagnostics: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Diagnostic' } },
    },
  },
  InvalidParams: {
    type: 'object', required: ['found', 'code', 'tool', 'error', 'problems', 'schema', 'params_schema'],
    properties: {
      found: { const: true }, code: { const: 'INVALID_PARAMS' }, tool: { type: 'string' }, error: { type: 'string' },
      problems: { type: 'array', items: { type: 'object' } }, schema: { type: 'string' }, params_schema: { type: 'object' },
    },
  },
  TimeoutNotAllowed: {
    type: 'object', required: ['code', 'tool', 'error', 'requested_ms', 'allowed_ms'],
    properties: { code: { const: 'TIMEOUT_NOT_ALLOWED' }, tool: { type: 'string' }, error: { type: 'string' }, requested_ms: { type: 'number' }, allowed_ms: { type: 'integer' } },
  },
  LeaseLapsed: {
    type: 'object', required: ['code', 'error', 'resolved_by', 'receipt'],
    description: "the confirmed call ran, but its run's lease lapsed while it ran and another gateway process closed the request as interrupted: the request is resolved by receipt resolved_by, not by this run's receipt",
    properties: { code: { const: 'LEASE_LAPSED' }, error: { type: 'string' }, resolved_by: { type: ['string', 'null'] }, receipt: { $ref: '#/components/schemas/Receipt' } },
  },
  ConfirmationInvalid: {
    type: 'object', required: ['code', 'reason', 'error'],
    properties: { code: { const: 'CONFIRMATION_INVALID' }, reason: { type: 'string' }, error: { type: 'string' } },
  },
  ReceiptPage: {
    type: 'object', required: ['receipts', 'limit', 'offset', 'next_offset'],
    properties: {
      receipts: { type: 'array', items: { $ref: '#/components/schemas/Receipt' } },
      limit: { type: 'integer' }, offset: { type: 'integer' }, next_offset: { type: ['integer', 'null'] },
      max_bytes: { type: 'integer', description: 'the most bytes of stored receipts one page holds (its first receipt always comes, whatever its size)' },
      ended_early: { const: true, description: 'the page holds fewer than limit receipts because the next would have passed max_bytes; next_offset continues' },
    },
  },
  ScanResult: {
    type: 'object', required: ['previous', 'commit', 'changed', 'tools', 'errors', 'warnings'],
    properties: {
      previous: { type: 'string' }, commit: { type: 'string' }, changed: { type: 'boolean' }, tools: { type: 'integer' },
      uncommitted: { type: 'array', items: { type: 'string' }, description: 'a local checkout served at HEAD: each definition file changed, new or deleted since HEAD, with its status ("tools/greet/TOOL.hdlp (changed, not committed)"), which is not served until committed; absent when there is none' },
      errors: { type: 'array', items: { $ref: '#/components/schemas/Diagnostic' }, description: ERRORS_WHO },
      warnings: { type: 'array', items: { $ref: '#/components/schemas/Diagnostic' }, description: WARNINGS_WHO },
      errors_withheld: { $ref: '#/components/schemas/ErrorsWithheld' },
      stale: { $ref: '#/components/schemas/Stale' },
    },
  },
  WebhookAccepted: {
    type: 'object', required: ['accepted', 'event', 'rescan'],
    properties: { accepted: { const: true }, event: { type: 'string' }, delivery: nullableString, rescan: { enum: ['scheduled', 'ignored', 'current'] }, reason: { type: 'string', description: 'why nothing was scheduled: another event than push, or the commit already served' }, names_differ: { type: 'string', description: 'a signed push naming another repository than the one served (renamed, mirrored, or sharing the secret): rescanned anyway, and said' } },
  },
  Health: {
    type: 'object', required: ['status'],
    description: 'status alone without the API token (when one is set); with it, the index and the calls in flight too',
    properties: {
      status: { enum: ['ok', 'degraded'] }, source: { type: 'string', description: "the registry's path or URL; to one who is no admin by its folder's name (or its remote URL without credentials), as a receipt's source.repository" },
      source_withheld: { type: 'string', description: "what of source is left out, and who can read it: present exactly when source is not whole" },
      commit: { type: 'string' }, tools: { type: 'integer' },
      errors: { type: 'integer' }, stale: { $ref: '#/components/schemas/Stale' },
      scan_error: { type: 'object', properties: { message: { type: 'string' }, at: { type: 'string' } } },
      store: {
        type: 'object', required: ['kind', 'ok'], description: 'the store; ok false (and status degraded) when it does not answer',
        properties: { kind: { enum: ['sqlite', 'postgres'] }, ok: { type: 'boolean' }, error: { type: 'string' } },
      },
      calls_in_flight: { type: 'integer' },
      matching: { enum: ['ready', 'loading', 'failed'], description: 'intent matching: loading while the search index is read or built after a start (calls by name are answered meanwhile; a match waits or gets 503 SEARCH_INDEX_LOADING), failed if that failed (the next match tries again)' },
      sandbox: {
        type: 'object', required: ['state', 'mode', 'containment', 'limits'],
        description: "how local tools are isolated here: state off (with the reason and what to change) when bubblewrap cannot run or the config turned it off",
        properties: {
          state: { enum: ['on', 'off'] }, mode: { enum: ['auto', 'required', 'off'] }, reason: { type: 'string' },
          containment: { enum: ['pid-namespace', 'process-group'] }, containment_reason: { type: 'string' },
          limits: { type: 'object', properties: { rlimits: { type: 'boolean' }, processes: { enum: ['cgroup', 'rlimit', 'unenforced'] }, reason: { type: 'string' } } },
        },
      },
      mcp_servers: {
        type: 'array', description: 'the configured MCP servers, when there are any',
        items: {
          type: 'object', required: ['name', 'transport', 'state', 'restarts', 'calls_in_flight'],
          properties: {
            name: { type: 'string' }, transport: { enum: ['stdio', 'http'] }, state: { enum: ['stopped', 'starting', 'running'] },
            pid: { type: 'integer' }, restarts: { type: 'integer' }, calls_in_flight: { type: 'integer' },
          },
        },
      },
    },
  },
  ToolsetList: {
    type: 'object', required: ['commit', 'toolsets'],
    properties: { commit: { type: 'string' }, toolsets: { type: 'array', items: { type: 'object', required: ['name', 'description', 'tools', 'path'], properties: { name: { type: 'string' }, description: { type: 'string' }, tools: { type: 'array', items: { type: 'string' } }, hint: { type: 'string' }, path: { type: 'string' } } } } },
  },
  SkillList: {
    type: 'object', required: ['commit', 'skills'],
    properties: { commit: { type: 'string' }, skills: { type: 'array', items: { type: 'object', required: ['name', 'description', 'path'], properties: { name: { type: 'string' }, description: { type: 'string' }, toolset: { type: 'string' }, path: { type: 'string' } } } } },
  },
  SessionRequest: {
    type: 'object', additionalProperties: false,
    properties: { toolsets: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 64, description: 'toolsets enabled for as long as the session lives' } },
  },
  Session: {
    type: 'object', required: ['id', 'created_at', 'toolsets', 'loaded', 'skills'],
    properties: {
      id: { type: 'string', description: 'send it as X-HLDP-Session' }, created_at: { type: 'string' },
      toolsets: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, scope: { enum: ['session', 'turn'] }, expires_at: nullableString } } },
      loaded: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, expires_at: { type: 'string' } } } },
      skills: { type: 'array', items: { type: 'string' }, description: "the session's skill index (skills whose toolset is active are left out)" },
      changed: { type: 'boolean' },
    },
  },
  SessionTools: {
    type: 'object', required: ['commit', 'active_toolsets', 'format', 'tools', 'names'],
    properties: {
      commit: { type: 'string' }, active_toolsets: { type: 'array', items: { type: 'string' } }, format: { enum: ['mcp', 'openai', 'anthropic'] }, tools: { type: 'array', items: { type: 'object' } },
      names: { type: 'object', additionalProperties: { type: 'string' }, description: "listed name → registry name of each registry tool listed; a listed name is callable as it is (POST /v1/call in the session, tool_call)" },
    },
  },
  ToolVisibility: {
    type: 'object', required: ['found', 'tool', 'reason'],
    description: 'what one tool is for the session, in one word, and why in one sentence',
    properties: { found: { type: 'boolean' }, tool: { type: 'string' }, called_as: { type: 'string' }, state: { enum: ['visible', 'reserved', 'hidden', 'forbidden'] }, reason: { type: 'string' } },
  },
  PromptBlock: {
    type: 'object', required: ['text', 'chars', 'budget', 'dropped'],
    properties: {
      text: { type: 'string' }, chars: { type: 'integer', description: 'Unicode code points' },
      budget: { type: 'object', properties: { chars: { type: 'integer' }, used: { type: 'integer' } } },
      dropped: { type: 'object', properties: { descriptions: { type: 'integer' }, description_chars: { type: 'integer' }, lines: { type: 'integer' }, names: { type: 'array', items: { type: 'string' } } } },
    },
  },
  Refused: {
    type: 'object', required: ['code', 'tool', 'state', 'reason', 'error'],
    properties: { code: { const: 'TOOL_FORBIDDEN' }, tool: { type: 'string' }, state: { const: 'forbidden' }, reason: { type: 'string' }, error: { type: 'string' } },
  },
  Substituted: {
    type: 'object', required: ['code', 'ran', 'tool', 'toolset', 'tools', 'message'],
    description: "the tool was reserved: its toolset is enabled instead, and the call has NOT run (call it again)",
    properties: { code: { const: 'CALL_NOT_RUN' }, ran: { const: false }, tool: { type: 'string' }, toolset: nullableString, tools: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } },
  },
  MetaAnswer: {
    type: 'object', required: ['ok', 'tool', 'message'],
    description: "in a session, what a meta-tool (toolset, tool_find, tool_load, read_skill) answers: the message the model reads, and that tool's data beside it; tool_call and confirm answer the receipt of the call they run, and approval_wait the request",
    properties: { ok: { const: true }, tool: { enum: ['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait'] }, message: { type: 'string' } },
  },
  MetaRefusal: {
    type: 'object', required: ['ok', 'tool', 'code', 'error'],
    description: "in a session, a meta-tool's refusal, with its code's status: the code, and the message that says what to send instead (TOOLSET_NOT_FOUND and SKILL_NOT_FOUND list what there is)",
    properties: { ok: { const: false }, tool: { enum: ['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait'] }, code: { type: 'string' }, error: { type: 'string' } },
  },
  ChainLink: { type: 'object', required: ['seq', 'hash'], properties: { seq: { type: 'integer' }, hash: { type: 'string' } } },
  ChainReport: {
    type: 'object', required: ['ok', 'checked', 'checkpoint', 'head'],
    properties: {
      ok: { type: 'boolean' },
      checked: { type: 'integer', description: 'receipts whose links were checked' },
      checkpoint: { $ref: '#/components/schemas/ChainLink', description: 'where the chain starts: genesis (seq 0) or the last retention checkpoint' },
      head: { $ref: '#/components/schemas/ChainLink', description: 'the newest link, as recorded with the last write' },
      broken: {
        type: 'object', required: ['seq', 'reason', 'message'],
        properties: { seq: { type: 'integer' }, reason: { enum: ['hash_mismatch', 'prev_hash_mismatch', 'missing', 'head_mismatch'] }, message: { type: 'string' } },
      },
    },
  },
} as const;
