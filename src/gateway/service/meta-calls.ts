import { withLimitRefusal, type MatchResult, type ProgressUpdate } from '../../core/index.js';
import { APPROVAL_WAIT_TOOL, CALL_TOOL, callParams, CONFIRM_TOOL, FIND_TOOL, LOAD_TOOL, META_TOOLS, READ_SKILL_TOOL, TOOLSET_TOOL, type MetaTool } from '../../export/index.js';
import { compactSchema } from '../../matcher/index.js';
import { compileShapeChecker, type ShapeChecker } from '../../scanner/index.js';
import type { MetaAnswer, SessionState, ToolsetRequest } from '../../sessions/index.js';
import { waitForApproval } from '../../oversight/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { Gateway } from './gateway.js';
import { MATCH_WAIT_MS } from './matching-readiness.js';

/** The meta-tools by name. */
export const META_TOOL_BY_NAME: ReadonlyMap<string, MetaTool> = new Map(META_TOOLS.map((tool) => [tool.name, tool]));

/** What a meta-tool call comes to, for MCP and HTTP to render each in its own way. */
export type MetaOutcome =
  | { kind: 'answer'; answer: MetaAnswer }
  | { kind: 'match'; result: MatchResult; changed: boolean }
  /** `tool_call` and `confirm`: what the call itself came to */
  | { kind: 'call'; outcome: CallOutcome; changed: boolean }
  | { kind: 'invalid'; code: 'INVALID_PARAMS' | 'SESSION_REQUIRED'; error: string };

const checkers = new Map<string, ShapeChecker>();

/**
 * Why a call naming a meta-tool without a session is refused, and what to send instead: the meta-tools are answered
 * only in a session (no registry tool may take their names), and the missing-tool advice, to write the tool's
 * TOOL.hdlp, would send the caller to write a definition validation refuses (review N, N5).
 */
export function metaToolWithoutSession(tool: MetaTool): string {
  const open = `'${tool.name}' is one of the gateway's meta-tools, answered only in a session: open one with POST /v1/sessions, then send this call again with its id in the header X-HLDP-Session (MCP clients have a session per connection)`;
  // tool_find, tool_call and confirm have routes of their own that need no session
  return tool.route.includes('X-HLDP-Session') ? open : `${open}; without a session, ${tool.route} does what '${tool.name}' does`;
}

/**
 * Runs one meta-tool (`toolset`, `tool_find`, `tool_load`, `tool_call`, `read_skill`, `confirm`, `approval_wait`) for a session,
 * with its arguments checked against its published schema. `resolveName` turns a name as the caller
 * sees it (an MCP listed name) into a registry name for `tool_call` and `tool_load`.
 */
export async function runMetaTool(
  gateway: Gateway,
  session: SessionState | undefined,
  tool: MetaTool,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; timeoutMs?: number; onProgress?: (update: ProgressUpdate) => void; resolveName?: (name: string) => string; longestWaitS?: number } = {},
): Promise<MetaOutcome> {
  const problems = argumentProblems(tool, args);
  if (problems.length) {
    return { kind: 'invalid', code: 'INVALID_PARAMS', error: `invalid params for '${tool.name}': ${problems.join('; ')}. Expected params: ${compactSchema(tool.inputSchema)}` };
  }
  const needsSession = (): MetaOutcome => ({ kind: 'invalid', code: 'SESSION_REQUIRED', error: `'${tool.name}' acts on a session: open one with POST /v1/sessions and send its id as X-HLDP-Session (MCP clients have one per connection)` });
  const { sessions } = gateway;
  const before = session ? sessions.view(session).digest : undefined;
  const changedSince = (): boolean => session !== undefined && sessions.view(session).digest !== before;
  switch (tool.name) {
    case TOOLSET_TOOL.name:
      if (!session) return needsSession();
      // a name without an action enables it (seed 000 §2: enable_toolset|name), as the agent meant: it was listed, the name ignored (review U11-19)
      return { kind: 'answer', answer: sessions.toolset(session, { action: args.name === undefined ? 'list' : 'enable', ...args } as ToolsetRequest) };
    case LOAD_TOOL.name:
      if (!session) return needsSession();
      // a name as tools/list or tool_find gave it (renamed to fit a client's alphabet) loads its registry tool
      return { kind: 'answer', answer: sessions.load(session, options.resolveName ? options.resolveName(args.name as string) : (args.name as string)) };
    case READ_SKILL_TOOL.name:
      return { kind: 'answer', answer: sessions.readSkill(args.name as string) };
    case FIND_TOOL.name: {
      const intent = (args.intent as string).trim();
      if (intent === '') return { kind: 'invalid', code: 'INVALID_PARAMS', error: `invalid params for '${tool.name}': 'intent' must be a non-empty string. Expected params: ${compactSchema(tool.inputSchema)}` };
      // checked against the schema above: a limit outside 1..MAX_LIMIT is INVALID_PARAMS, never cut (review U11-25)
      const limit = args.limit as number | undefined;
      const context = args.context as { tools?: string[]; group?: string } | undefined;
      const tools = context?.tools;
      const group = context?.group;
      const hint = tools === undefined && group === undefined ? {} : { context: { ...(tools ? { tools } : {}), ...(group ? { group } : {}) } };
      // a call's own deadline bounds how long it waits for a search index still loading after a start
      const wait = options.timeoutMs === undefined ? {} : { waitMs: Math.min(MATCH_WAIT_MS, options.timeoutMs) };
      const result = await gateway.match(intent, { ...(limit === undefined ? {} : { limit }), ...hint, ...wait, ...(session ? { session } : {}) });
      const found = sessions.find(session, result);
      return { kind: 'match', result: found.result, changed: found.changed };
    }
    case CALL_TOOL.name: {
      const params = callParams(args);
      if (!params.ok) return { kind: 'invalid', code: 'INVALID_PARAMS', error: `invalid params for '${tool.name}': ${params.error}. Expected params: ${compactSchema(tool.inputSchema)}` };
      const name = options.resolveName ? options.resolveName(args.name as string) : (args.name as string);
      const outcome = await gateway.call(name, params.value, { ...(options.signal ? { signal: options.signal } : {}), ...deadlineOf(options), ...(session ? { session } : {}), via: 'tool_call' });
      return { kind: 'call', outcome, changed: changedSince() };
    }
    case APPROVAL_WAIT_TOOL.name: {
      if (!session) return needsSession();
      // the session's principal waits: only the request's caller, one who may decide it, or an admin sees it
      const waited = await waitForApproval(gateway, gateway.principal(session.principal), args.id as string, Math.min((args.wait_s as number | undefined) ?? 30, options.longestWaitS ?? Infinity), options.signal);
      return waited.kind === 'receipt' ? { kind: 'call', outcome: waited.outcome, changed: false } : waited;
    }
    default: {
      const outcome = await gateway.confirm(args.token as string, { ...(options.signal ? { signal: options.signal } : {}), ...deadlineOf(options), ...(session ? { session } : {}) });
      return { kind: 'call', outcome, changed: false };
    }
  }
}

/** What is wrong with a meta-tool's arguments, worded as the matcher words a registry tool's invalid params. */
function argumentProblems(tool: MetaTool, args: Record<string, unknown>): string[] {
  const properties = (tool.inputSchema['properties'] ?? {}) as Record<string, unknown>;
  const required = (tool.inputSchema['required'] ?? []) as string[];
  const missing = required.filter((key) => !Object.hasOwn(args, key)).map((key) => `'${key}' is required but missing`);
  const unknown = Object.keys(args).filter((key) => !Object.hasOwn(properties, key)).map((key) => `'${key}' is not a parameter of this tool`);
  let checker = checkers.get(tool.name);
  if (!checker) checkers.set(tool.name, (checker = compileShapeChecker({ ...tool.inputSchema, required: [], additionalProperties: true }, 'the arguments')));
  // tool_find's limit outside 1..MAX_LIMIT is refused in the words POST /v1/match and hldp match use (review U11-25)
  const problems = tool.name === FIND_TOOL.name ? withLimitRefusal(checker(args), args['limit']) : checker(args);
  return [...missing, ...unknown, ...problems.map((problem) => problem.message)];
}

// the deadline and progress sink a surface read from the request (HTTP `timeout_ms`, MCP `_meta`), passed on to the call it runs
function deadlineOf(options: { timeoutMs?: number; onProgress?: (update: ProgressUpdate) => void }): { timeoutMs?: number; onProgress?: (update: ProgressUpdate) => void } {
  return { ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
}
