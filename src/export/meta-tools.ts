import { isDeepStrictEqual } from 'node:util';
import { LIMIT_SCHEMA, MAX_LIMIT, type JsonSchema } from '../core/index.js';
import type { ToolHints } from './tool-annotations.js';

/** A tool the gateway itself answers, beside the registry's: same fields as a listed registry tool. */
export interface MetaTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: ToolHints;
  /** the HTTP API route that does the same, for agents that do not speak MCP */
  route: string;
}

/** `tool_find`: an intent → 1-3 candidates or `found: false`, through the matcher; runs nothing. In a session, what it found with confidence high is loaded for this turn; a low answer's candidates are offered only (review U11-2). */
export const FIND_TOOL: MetaTool = {
  name: 'tool_find',
  title: '查找工具 (find a tool)',
  description:
    `Find the registered tools for an intent, in any language. Answers 1-${MAX_LIMIT} candidates (name, intent, params schema) to call next, ` +
    'with confidence high or low (low: they match part of the intent, or only its meaning; check one fits), or found:false when nothing matches; ' +
    'high ones are added to your list for this turn; a low one you call with tool_call once you checked it fits. Runs nothing.',
  inputSchema: {
    type: 'object',
    properties: {
      intent: { type: 'string', minLength: 1, maxLength: 4000, description: 'what you want to do, e.g. 查看最近的提交记录' },
      limit: LIMIT_SCHEMA,
      context: {
        type: 'object',
        description: 'what you know about the situation: tools you expect to need, the group you work in',
        properties: {
          tools: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1 }, description: 'tool names or aliases' },
          group: { type: 'string', minLength: 1, description: "a tools' group" },
        },
      },
    },
    required: ['intent'],
    additionalProperties: false,
  },
  annotations: { title: '查找工具 (find a tool)', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  route: 'POST /v1/match',
};

/** `confirm`: runs the call a confirmation token stands for, exactly as it was asked. */
export const CONFIRM_TOOL: MetaTool = {
  name: 'confirm',
  title: '确认执行 (confirm a pending call)',
  description: 'Run a call that answered confirmation_required, exactly as it was asked. Pass the single-use token that answer gave.',
  inputSchema: {
    type: 'object',
    properties: { token: { type: 'string', minLength: 1, description: 'the token from the confirmation_required answer' } },
    required: ['token'],
    additionalProperties: false,
  },
  annotations: { title: '确认执行 (confirm a pending call)', destructiveHint: true },
  route: 'POST /v1/confirm',
};

/** The longest one wait for an approval request's decision may last, in seconds: `approval_wait`'s `wait_s`, `GET /v1/approvals/:id?wait=`. */
export const MAX_APPROVAL_WAIT_SECONDS = 120;

/**
 * The longest one `approval_wait` lasts over MCP, in seconds: the official SDK's clients give up every request at 60 s
 * (DEFAULT_REQUEST_TIMEOUT_MSEC), and a wait of 90 s came back as the protocol error "Request timed out", not a tool
 * result (review userZ11, U11-26). A longer `wait_s` is cut to this; still pending, the agent calls again.
 */
export const MCP_APPROVAL_WAIT_SECONDS = 50;

/** `approval_wait`: waits (bounded) for a pending approval request's decision, and answers the receipt of the call it released. */
export const APPROVAL_WAIT_TOOL: MetaTool = {
  name: 'approval_wait',
  title: '等待审批 (wait for an approval)',
  description:
    'Wait for a call that answered approval_required (pending: a person decides it) to be decided, and get what it came to: ' +
    "the call's receipt once it ran (its output, or its error), or the refusal (denied, expired, cancelled) as a receipt that says nothing ran. " +
    'Still pending when the wait ends: call it again (over MCP one wait lasts at most ' + MCP_APPROVAL_WAIT_SECONDS + ' s). Calling the tool itself again with the same params files nothing new: it answers this same pending request.',
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 256, description: 'the request id (apr_…) from the approval_required answer' },
      wait_s: { type: 'integer', minimum: 0, maximum: MAX_APPROVAL_WAIT_SECONDS, default: 30, description: `how long to wait for the decision, in seconds (0: just look); over MCP at most ${MCP_APPROVAL_WAIT_SECONDS}, under clients' usual 60 s request timeout` },
    },
    required: ['id'],
    additionalProperties: false,
  },
  annotations: { title: '等待审批 (wait for an approval)', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  route: 'GET /v1/approvals/:id?wait=30',
};

/** `toolset`: lists, enables and disables the session's toolsets; idempotent and forgiving. */
export const TOOLSET_TOOL: MetaTool = {
  name: 'toolset',
  title: '工具集 (toolsets)',
  description:
    'List, enable or disable toolsets: named sets of tools for one kind of work. Enabling one lists its tools with their arguments; ' +
    'it stays active for 10 minutes after the last call of any of its tools, and enabling it again extends that. Disabling with none active is fine.',
  inputSchema: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['list', 'enable', 'disable'], description: 'list the toolsets, enable one, or disable one (all, without a name); left out: enable with a name, list without one' },
      name: { type: 'string', minLength: 1, maxLength: 256, description: 'the toolset, e.g. repo' },
      scope: { type: 'string', enum: ['session', 'turn'], default: 'session', description: 'session: until it times out or is disabled; turn: until this turn ends' },
    },
    additionalProperties: false,
  },
  annotations: { title: '工具集 (toolsets)', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  route: 'POST /v1/call {tool: "toolset"} with X-HLDP-Session',
};

/** `tool_load`: brings a reserved tool or group back for this turn, without changing the active toolsets. */
export const LOAD_TOOL: MetaTool = {
  name: 'tool_load',
  title: '加载工具 (load a tool)',
  description: 'Bring a tool (or every tool of a group) that is not in the active toolsets into your list for this turn, without changing the active toolsets. Answers its arguments.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 256, description: 'a tool name or a group name' } },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { title: '加载工具 (load a tool)', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  route: 'POST /v1/call {tool: "tool_load"} with X-HLDP-Session',
};

/** `tool_call`: runs any tool the session may run, for clients that never read the tool list again. */
export const CALL_TOOL: MetaTool = {
  name: 'tool_call',
  title: '调用工具 (call a tool by name)',
  description: 'Run any tool you are allowed to run by its name, even one not in your tool list (found with tool_find or named by a toolset). Answers what the tool itself answers.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 256, description: 'the tool name' },
      params: { type: 'object', description: "the tool's arguments", default: {} },
      // MCP's own word for them, which models trained on MCP write (review userZ7 F11)
      arguments: { type: 'object', description: "the same as params, MCP's word for them: give one of the two" },
    },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { title: '调用工具 (call a tool by name)' },
  route: 'POST /v1/call',
};

/** `read_skill`: the body of a skill (knowledge: steps, commands, pitfalls), read on demand. */
export const READ_SKILL_TOOL: MetaTool = {
  name: 'read_skill',
  title: '阅读技能 (read a skill)',
  description: 'Read a skill: the steps, commands and pitfalls for one kind of task. The skill index names them with the situation each is for.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 256, description: 'the skill name' } },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { title: '阅读技能 (read a skill)', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  route: 'POST /v1/call {tool: "read_skill"} with X-HLDP-Session',
};

/** The meta-tools, in the order they are listed (before the registry's tools): visible in every toolset. */
export const META_TOOLS: readonly MetaTool[] = [TOOLSET_TOOL, FIND_TOOL, LOAD_TOOL, CALL_TOOL, READ_SKILL_TOOL, CONFIRM_TOOL, APPROVAL_WAIT_TOOL];

/** Names no registry tool may be exported under: a registry tool with one of them gets a fingerprint suffix instead. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(META_TOOLS.map((tool) => tool.name));

/**
 * `tool_call`'s params: `params`, or `arguments` (MCP's word, which models write; review userZ7 F11); both given, they
 * must be the same, since neither can be chosen over the other without the caller's word.
 */
export function callParams(args: Record<string, unknown>): { ok: true; value: unknown } | { ok: false; error: string } {
  // an empty `params` is its schema's default, which a client that fills in defaults sends beside `arguments`: it gives way (review Z14, Z14-4)
  const empty = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  const given = ['params', 'arguments'].filter((key) => Object.hasOwn(args, key) && args[key] !== undefined && !(key === 'params' && empty(args[key]) && args['arguments'] !== undefined));
  if (given.length === 2 && !isDeepStrictEqual(args.params, args.arguments)) {
    return { ok: false, error: "'params' and 'arguments' are the same thing (the tool's arguments) and differ here; give one of them" };
  }
  return { ok: true, value: (given[0] === undefined ? undefined : args[given[0]]) ?? {} };
}
