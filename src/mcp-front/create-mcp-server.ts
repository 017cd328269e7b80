import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { eventResources, EVENTS_TEMPLATE, EVENTS_URI, isEventsUri } from '../events/index.js';
import { APPROVAL_WAIT_TOOL, CALL_TOOL, CONFIRM_TOOL, FIND_TOOL, LOAD_TOOL, MCP_APPROVAL_WAIT_SECONDS, READ_SKILL_TOOL, TOOLSET_TOOL } from '../export/index.js';
import { catalogFor, prepareCatalog, type SessionState } from '../sessions/index.js';
import { PACKAGE_ROOT } from '../config/index.js';
import { receiptSeenBy } from '../policy/index.js';
import { runMetaTool, SearchIndexLoadingError, type CallOutcome, type Gateway } from '../gateway/service/index.js';
import { ProgressSent, readCallMeta, type CallMeta } from './call-meta.js';
import { failure, metaResult, outcomeResult } from './call-result.js';
import { elicitApproval, type SendRelated } from './elicit-approval.js';
import { skillResources, SKILL_URI_PREFIX } from './skill-resources.js';

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  `Tools from a git registry (brush-holder). Call a tool by its name; if you do not know which one fits, call ${FIND_TOOL.name} with your intent. ` +
  `${TOOLSET_TOOL.name} lists and enables toolsets (named sets of tools for one kind of work); ${LOAD_TOOL.name} brings one more tool into your list; ` +
  `${CALL_TOOL.name} runs any tool you may use by name; ${READ_SKILL_TOOL.name} reads a skill (steps for a kind of task; also resources skill://<name>). ` +
  `Results are the tools' raw output; a failure comes back as an error with the raw stderr. ` +
  `A tool that needs confirmation answers with a token and runs nothing: call ${CONFIRM_TOOL.name} with that token to run it. ` +
  `A call that needs a person's approval answers pending with a request id and runs nothing: call ${APPROVAL_WAIT_TOOL.name} with that id to wait for the decision and get the call's receipt; calling the tool again with the same params files nothing new (it answers the same pending request); with other params it files another.`;

/** How one MCP connection's session starts. */
export interface McpSessionOptions {
  /** toolsets enabled from the start, for as long as the connection lives (`/mcp?toolsets=a,b`, `hldp mcp --toolsets`) */
  toolsets?: readonly string[];
  /** the principal the connection acts for (the one whose token opened it) */
  principal: string;
  /**
   * the agent session's id (over HTTP, the MCP session's own): resumed if the session store holds it, so that
   * an instance restoring the connection serves it with its toolsets; opened under this id otherwise. The
   * HTTP layer then owns its end: closing this server does not delete a shared session.
   */
  session?: string;
  /**
   * the connection was opened before, and is brought up again from the store: if its agent session is lost, the one
   * opened in its place holds the connection's toolsets, a rescan's gone ones told as gone, not refused
   */
  restored?: boolean;
}

/**
 * An MCP server over `gateway` with its own agent session: lists the meta-tools and the registry tools the
 * session sees, answers the meta-tools, runs calls through `gateway.call` (visibility first), exposes skills as
 * resources, and sends `notifications/tools/list_changed` whenever its session's view changes (a toolset
 * enabled or expired, a tool loaded, a rescan that changes a tool it lists) and only then.
 * One server per connection (the SDK binds a server to one transport); `close()` it to end the session.
 */
export function createMcpServer(gateway: Gateway, options: McpSessionOptions): Server {
  keepCatalogReady(gateway);
  // the low-level Server, not McpServer: the tools are JSON Schemas read from TOOL.hdlp that change on rescan,
  // and the gateway, not zod, validates params (with the same wording and receipts as POST /v1/call)
  const server = new Server(
    { name: 'brush-holder', title: 'brush-holder 笔筒', version: VERSION },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true } }, instructions: INSTRUCTIONS },
  );
  // the event stream (hldp tail for MCP clients), filtered by what this connection's principal may see
  const events = eventResources(gateway.events, server, () => gateway.principals.get(options.principal));
  const { sessions } = gateway;
  const resumed = resumeOrOpen(gateway, options);
  const opened = resumed.then((result) => result.state);
  // a failed open is answered on the first request; it never goes unhandled
  opened.catch(() => undefined);
  let announced: string | undefined;
  let initialized = false;
  // the session as this server last read it (in memory: the very object the store holds)
  let latest: Promise<SessionState> = opened;
  goneOf.set(server, async () => sessions.goneHeld(await latest).map((entry) => entry.name));
  const session = async (): Promise<SessionState> => {
    const held = await latest;
    // read again each request: another instance sharing the store may have changed it since
    let state = await sessions.get(held.id);
    if (!state) {
      state = held;
      await sessions.save(state);
    }
    latest = Promise.resolve(state);
    return state;
  };
  // `send` relates the notification to the request that caused it, so it travels on that request's own
  // response stream and cannot be lost before the client's GET stream is open
  const announceIfChanged = async (state: SessionState, send?: (notification: ServerNotification) => Promise<void>): Promise<void> => {
    const { digest } = sessions.view(state);
    if (!initialized || digest === announced) return;
    announced = digest;
    await (send ? send({ method: 'notifications/tools/list_changed' }) : server.sendToolListChanged()).catch(() => undefined);
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const state = await session();
    const view = sessions.view(state);
    announced = view.digest;
    return { tools: catalogFor(gateway.registry.index).toolsFor(view) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const state = await session();
    const progress = new ProgressSent();
    const ask: SendRelated = (elicit, schema, options) => extra.sendRequest(elicit, schema, options);
    const result = await callTool(gateway, state, request.params.name, request.params.arguments ?? {}, readCallMeta(request.params._meta, extra, progress), (outcome) => elicitApproval(gateway, server, state, outcome, ask, extra.signal));
    // the tool's progress goes out before its result: a client drops progress that comes after
    await progress.flushed();
    // the change reaches the store before the answer: the client's next request may land at another instance
    await sessions.settle(state);
    await announceIfChanged(state, extra.sendNotification);
    return result;
  });
  // the session's skill index: a skill whose toolset is active is left out (seed 000 §6), though it can still be read
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: skillResources(sessions.skillIndex(await session())) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [EVENTS_TEMPLATE] }));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    if (!isEventsUri(request.params.uri)) throw new McpError(ErrorCode.InvalidParams, `only ${EVENTS_URI} (with ?types= if you like) can be subscribed to; skills do not change within a commit`);
    await events.subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    events.unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (isEventsUri(request.params.uri)) return events.read(request.params.uri);
    const name = request.params.uri.startsWith(SKILL_URI_PREFIX) ? request.params.uri.slice(SKILL_URI_PREFIX.length) : '';
    const answer = sessions.readSkill(decodeURIComponent(name));
    // MCP's "resource not found" (-32002), not an internal error (review userX, X6)
    if (!answer.ok) throw new McpError(RESOURCE_NOT_FOUND, `${answer.message}; skills are read as ${SKILL_URI_PREFIX}<name>`);
    return { contents: [{ uri: request.params.uri, mimeType: 'text/markdown', text: answer.message }] };
  });

  server.oninitialized = () => {
    initialized = true;
    void opened.then((state) => (announced ??= sessions.view(state).digest), () => undefined);
  };
  const unsubscribe = gateway.onIndexChange(() => {
    // only a session whose own listed tools changed hears about a rescan
    void latest.then((state) => announceIfChanged(state), () => undefined);
  });
  server.onclose = () => {
    unsubscribe();
    events.close();
    // a shared session outlives this instance's copy of the connection: the client's DELETE or the idle purge ends it;
    // one opened for a connection that never initialised (its first request was no initialize) ends here
    void resumed.then(({ state, resumed }) => {
      if (options.session === undefined || !sessions.shared || (!initialized && !resumed)) return sessions.close(state.id);
      return undefined;
    }, () => undefined);
  };
  return server;
}

const goneOf = new WeakMap<Server, () => Promise<string[]>>();

/** The toolsets the connection's session holds that the registry no longer serves (its session as last read); none for a server this module did not make. */
export function goneToolsets(server: Server): Promise<string[]> {
  return goneOf.get(server)?.() ?? Promise.resolve([]);
}

// the code MCP's specification gives a resource that does not exist (the SDK names no constant for it)
const RESOURCE_NOT_FOUND = -32002 as ErrorCode;

/** The session named by `options.session` if the store holds one of this principal, else a new one (under that id when it is free). */
async function resumeOrOpen(gateway: Gateway, options: McpSessionOptions): Promise<{ state: SessionState; resumed: boolean }> {
  const { sessions } = gateway;
  // ownership first: another principal's session under that id is neither read as used nor taken over (review J)
  const held = options.session === undefined ? undefined : await sessions.get(options.session, { principal: options.principal });
  if (held) return { state: held, resumed: true };
  const free = options.session !== undefined && !(await sessions.exists(options.session));
  const result = await sessions.open({ principal: options.principal, ...(options.toolsets ? { toolsets: options.toolsets } : {}), ...(free ? { id: options.session } : {}), ...(options.restored ? { restored: true } : {}) });
  if (!result.ok) throw new Error(result.message);
  // a restored connection whose toolset a rescan took away opens with the others, and is told of it (toolset list, the header)
  if (result.gone.length > 0) gateway.logger?.warn({ session: result.session.id, principal: options.principal, gone: result.gone.map((entry) => entry.name) }, 'an MCP session restored without its agent session holds toolsets the registry no longer serves; the agent is told they are gone');
  return { state: result.session, resumed: false };
}

/** One `tools/call`: a meta-tool, or a registry tool through exactly the path `POST /v1/call` takes, in the session. */
async function callTool(gateway: Gateway, session: SessionState, name: string, args: Record<string, unknown>, meta: CallMeta, decide: (outcome: CallOutcome) => Promise<CallOutcome>): Promise<CallToolResult> {
  const catalog = catalogFor(gateway.registry.index);
  const target = catalog.resolve(name);
  if (!meta.ok) return failure(meta.error);
  const { signal, timeoutMs, onProgress } = meta.options;
  // a receipt as the session's principal may read it: the host, URL and repository path of the gateway that ran it are an admin's (review Z7, Z7-1)
  const seen = (outcome: CallOutcome): CallOutcome => (outcome.kind === 'receipt' ? { ...outcome, receipt: receiptSeenBy(outcome.receipt, gateway.principal(session.principal)) } : outcome);
  try {
    if (target.kind === 'meta') {
      const outcome = await runMetaTool(gateway, session, target.tool, args, { ...(signal ? { signal } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(onProgress ? { onProgress } : {}), longestWaitS: MCP_APPROVAL_WAIT_SECONDS, resolveName: (listed) => { const resolved = catalog.resolve(listed); return resolved.kind === 'tool' ? resolved.name : listed; } });
      // tool_call waits for approval like a direct call: the human at the client may decide it there
      return metaResult(outcome.kind === 'call' ? { ...outcome, outcome: seen(await decide(outcome.outcome)) } : outcome, catalog);
    }
    return outcomeResult(seen(await decide(await gateway.call(target.name, args, { ...meta.options, session }))), catalog);
  } catch (error) {
    // a match before the search index is ready: the agent asks again, or calls by name (HTTP answers 503 with the same code)
    if (error instanceof SearchIndexLoadingError) return failure(`SEARCH_INDEX_LOADING: ${error.message}`, { code: error.code, retry_after_seconds: error.retryAfterSeconds });
    // a bug in the gateway still reaches the agent as a failed call, never as a protocol error
    return failure(`INTERNAL_ERROR: ${error instanceof Error ? error.message : String(error)}`, { code: 'INTERNAL_ERROR' });
  }
}

// gateways whose rescans build the next catalog before the swap, once MCP has been used on them
const preparing = new WeakSet<Gateway>();

function keepCatalogReady(gateway: Gateway): void {
  if (preparing.has(gateway)) return;
  preparing.add(gateway);
  gateway.beforeSwap((registry, previous) => prepareCatalog(registry.index, previous.index));
}
