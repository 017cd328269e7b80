import type { JsonSchema } from '../core/index.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../matcher/index.js';
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

/** `tool_find`: an intent → 1-3 candidates or `found: false`, through the matcher; runs nothing. */
export const FIND_TOOL: MetaTool = {
  name: 'tool_find',
  title: '查找工具 (find a tool)',
  description: 'Find the registered tools for an intent, in any language. Answers 1-3 candidates (name, intent, params schema) to call next, or found:false. Runs nothing.',
  inputSchema: {
    type: 'object',
    properties: {
      intent: { type: 'string', minLength: 1, description: 'what you want to do, e.g. 查看最近的提交记录' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'how many candidates at most' },
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

/** The meta-tools, in the order they are listed (before the registry's tools). */
export const META_TOOLS: readonly MetaTool[] = [FIND_TOOL, CONFIRM_TOOL];

/** Names no registry tool may be exported under: a registry tool with one of them gets a fingerprint suffix instead. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(META_TOOLS.map((tool) => tool.name));
