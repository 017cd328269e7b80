import { createHash, randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import express, { type Express, type RequestHandler, type Response, type Router } from 'express';
import { exceedsDepth, fairEvictee, isLoopback, loadOnce } from '../core/index.js';
import { JSON_RPC, jsonRpcBodyErrors, loopbackHostGuard, sendJsonRpcError as rpcError, whileAnswering } from '../http-edge/index.js';
import { LOCAL_PRINCIPAL } from '../policy/index.js';
import type { Gateway } from '../gateway/service/index.js';
import type { McpSessionOptions } from './create-mcp-server.js';
import type * as SessionParts from './session-parts.js';
import type { SessionTransport } from './session-transport.js';

/** How `/mcp` is served. */
export interface McpHttpOptions {
  /** sessions kept at once; opening one more closes the least recently used (default 100) */
  maxSessions?: number;
}

/** The Streamable HTTP endpoint: an express router and its sessions. */
export interface McpHttpHandler {
  /** serves POST (messages), GET (the notification stream) and DELETE (end of session) at its root */
  router: Router;
  /** sessions open now */
  readonly sessionCount: number;
  /** closes every session (ending their streams, so the HTTP server can close) */
  close(): Promise<void>;
}

interface Session {
  transport: SessionTransport;
  server: Server;
  /** when this instance last marked it used in the store */
  touched: number;
  /** the principal whose token opened it: only that principal may use it */
  principal: string;
  /** the toolsets its session holds that the registry no longer serves */
  gone(): Promise<string[]>;
}

const DEFAULT_MAX_SESSIONS = 100;
// a session's "last used" in the store is written at most this often per instance
const TOUCH_EVERY_MS = 10 * 60_000;
// sessions no instance used for this long are deleted from the store
const SESSION_IDLE_MS = 24 * 60 * 60_000;
/** The bus topic of "this session was ended (DELETE) at some instance". */
const SESSION_CLOSED = 'mcp_session_closed';
/** The header naming the toolsets a session holds that a rescan took away (as on POST /v1/call in a session). */
const TOOLSETS_GONE_HEADER = 'X-HLDP-Toolsets-Gone';
/** The methods of the Streamable HTTP transport: messages, the notification stream, the end of a session. */
const MCP_METHODS = ['GET', 'POST', 'DELETE'];

// a closed session is announced by this digest of its id, never the id: any role that may connect to PostgreSQL hears
// the bus (LISTEN checks no privilege), and a session id is what a client presents; the instances holding it know it
const sessionDigest = (id: string): string => createHash('sha256').update(id).digest('hex');

/**
 * The MCP server SDK (and zod), loaded on the first request that opens or restores a session: `hldp serve` listens
 * without paying its module load (~0.4 s of CPU, issue #18), and a gateway nobody reaches over MCP never pays it.
 */
const loadSessionParts: () => Promise<typeof SessionParts> = loadOnce(() => import('./session-parts.js'));

/**
 * MCP over Streamable HTTP, with sessions: each session is one MCP server over `gateway`, so that
 * `notifications/tools/list_changed` reaches the client on its GET stream when a rescan changes the tools.
 * A session's state (the client's initialize request) is kept in the store, so that any instance sharing the
 * store serves it: one that does not hold it restores it by replaying the initialize (session-transport.ts).
 */
export function createMcpHttpHandler(gateway: Gateway, options: McpHttpOptions = {}): McpHttpHandler {
  // insertion order is recency: a session is moved to the end each time it is used
  const sessions = new Map<string, Session>();
  const restoring = new Map<string, Promise<Session | undefined>>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const { store, config } = gateway;
  const logger = gateway.logger;
  const router = express.Router();
  // DNS-rebinding protection, as the MCP transport spec asks: the same check `createApp` makes, so that
  // the handler is safe mounted on its own too
  if (isLoopback(config.listen.host)) router.use(loopbackHostGuard(config.listen.publicUrl));
  // parsed here so that the initialize request's params can be kept in the store
  router.post('/', express.json({ limit: config.maxBodyBytes }));

  /** ends this instance's copy of a session; the store's record stays unless the client ended it */
  const endSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    sessions.delete(id);
    await session?.server.close();
  };

  // one more than the bound ends the least recently used connection of the principal holding the most, so that
  // a principal opening connections in a loop ends its own, never another principal's
  const keep = (id: string, session: Session): void => {
    sessions.set(id, session);
    if (sessions.size <= maxSessions) return;
    const evicted = fairEvictee([...sessions].map(([held, { principal }]) => [held, principal] as const));
    if (evicted !== undefined) void endSession(evicted);
  };

  const transportFor = ({ SessionTransport }: typeof SessionParts, sessionId: () => string, onInitialized?: (id: string) => Promise<void>): SessionTransport => {
    const transport: SessionTransport = new SessionTransport({
      sessionIdGenerator: sessionId,
      maxRequestBodySize: config.maxBodyBytes,
      ...(onInitialized ? { onsessioninitialized: onInitialized } : {}),
      onsessionclosed: async (id) => {
        sessions.delete(id);
        // ended by the client: no instance may serve it again, nor its agent session
        await store.mcpSessions.delete(id).catch((error: Error) => logger?.warn({ err: error.message }, 'cannot delete the MCP session from the store'));
        await gateway.sessions.close(id).catch((error: Error) => logger?.warn({ err: error.message }, 'cannot delete the agent session from the store'));
        await store.bus.publish(SESSION_CLOSED, { session_sha256: sessionDigest(id) }).catch(() => undefined);
      },
    });
    return transport;
  };

  const openSession = async (request: express.Request, response: Response): Promise<void> => {
    // connect-time selection (the first of three delivery levels): /mcp?toolsets=repo,ops
    const toolsets = toolsetsOf(request.query['toolsets']);
    if (typeof toolsets === 'string') return rpcError(response, 400, JSON_RPC.invalidParams, toolsets);
    const principal = principalName(gateway, response);
    if (principal === undefined) return rpcError(response, 401, -32001, "Unauthorized: send Authorization: Bearer <a principal's token>");
    // unknown names, and toolsets of which the principal may use nothing, are refused alike (review V, V2)
    const problem = gateway.sessions.toolsetProblem(toolsets ?? [], principal);
    if (problem) return rpcError(response, 400, JSON_RPC.invalidParams, `Bad Request: ${problem.message}`);
    // the agent session takes the connection's id: an instance that restores the connection resumes it from a shared store
    const sessionId = randomUUID();
    const options: McpSessionOptions = { principal, session: sessionId, ...(toolsets ? { toolsets } : {}) };
    const parts = await loadSessionParts();
    const server = parts.createMcpServer(gateway, options);
    const transport = transportFor(parts, () => sessionId, async (id) => {
      keep(id, { transport, server, touched: Date.now(), principal, gone: () => parts.goneToolsets(server) });
      const initialize = initializeParams(request.body);
      // without the record this instance still serves the session; the others answer 404 and the client starts a new one
      if (initialize) await store.mcpSessions.create({ id, initialize: keptInitialize(initialize), options: { ...options }, keep: config.sessions.maxSessionsPerPrincipal }).catch((error: Error) => logger?.warn({ err: error.message }, 'cannot keep the MCP session in the store'));
    });
    await server.connect(transport);
    await whileAnswering(response, () => transport.handleRequest(request, response, request.body));
    // anything but an initialize request was answered with 400 by the transport: there is no session to keep
    if (transport.sessionId === undefined) await server.close();
  };

  const restore = async (id: string, principal: string | undefined, protocolVersion: string | undefined): Promise<Session | undefined> => {
    const record = await store.mcpSessions.get(id).catch(() => undefined);
    if (!record) return undefined;
    const options = sessionOptions(record.options);
    // a session recorded before principals existed belongs to nobody once credentials are configured; another
    // principal's is not restored at all — not replayed, kept, marked used, nor let evict its owner's connections —
    // and is answered as one that does not exist, after the same one read of the store (review J)
    if (!options || options.principal !== principal) return undefined;
    const parts = await loadSessionParts();
    // its agent session may be lost (a restart, an instance that never held it): a toolset gone since is then told, not refused
    const server = parts.createMcpServer(gateway, { ...options, restored: true });
    const transport = transportFor(parts, () => id);
    await server.connect(transport);
    try {
      await transport.restore(record.initialize, protocolVersion);
    } catch (error) {
      logger?.warn({ err: (error as Error).message }, 'cannot restore an MCP session');
      await server.close();
      return undefined;
    }
    const session = { transport, server, touched: 0, principal: options.principal, gone: () => parts.goneToolsets(server) };
    keep(id, session);
    return session;
  };

  /** The session `id` if `principal` opened it: held here, or restored from the store; undefined for any other. */
  const sessionFor = async (id: string, principal: string | undefined, protocolVersion: string | undefined): Promise<Session | undefined> => {
    const held = sessions.get(id);
    if (held?.principal === principal) return held;
    if (held) {
      // held here for another principal: read the store as for an id held nowhere, so the answer's time does not tell
      await store.mcpSessions.get(id).catch(() => undefined);
      return undefined;
    }
    // restores are shared by the requests of one principal only: another's must not wait on, or be handed, the owner's
    const key = `${principal ?? ''}\n${id}`;
    let pending = restoring.get(key);
    if (!pending) {
      pending = restore(id, principal, protocolVersion).finally(() => restoring.delete(key));
      restoring.set(key, pending);
    }
    return pending;
  };

  router.all('/', async (request, response) => {
    // the transport's three methods; any other is the spec's 405, in the JSON-RPC shape the rest of /mcp answers with
    if (!MCP_METHODS.includes(request.method)) {
      response.set('Allow', MCP_METHODS.join(', '));
      return rpcError(response, 405, JSON_RPC.invalidRequest, `Method not allowed: /mcp takes ${MCP_METHODS.join(', ')}`);
    }
    const id = request.get('mcp-session-id');
    if (id === undefined) {
      if (request.method === 'POST') return openSession(request, response);
      return rpcError(response, 400, -32000, 'Bad Request: no Mcp-Session-Id header; POST an initialize request first to open a session');
    }
    // 404 tells the client to start a new session (the session ended, or no instance knows it);
    // another principal's session is not found either, and is left as it was: a session id is no credential
    const session = await sessionFor(id, principalName(gateway, response), request.get('mcp-protocol-version'));
    if (!session) return rpcError(response, 404, -32001, `Session not found: '${id}' is not open; initialize a new session`);
    sessions.delete(id);
    sessions.set(id, session);
    if (Date.now() - session.touched > TOUCH_EVERY_MS) {
      session.touched = Date.now();
      void store.mcpSessions.touch(id).catch(() => undefined);
    }
    // as on POST /v1/call in a session: a toolset a rescan took away is named on each answer (the session as this request found it)
    const gone = await session.gone().catch(() => []);
    if (gone.length > 0) response.setHeader(TOOLSETS_GONE_HEADER, gone.join(', '));
    // a long receipt approval_wait answers is held until this response closes, in the gateway's one count (review Z8, Z8-8)
    await whileAnswering(response, () => session.transport.handleRequest(request, response, request.body));
  });

  // a body the parser refused, as JSON-RPC errors (-32700 for one that is not JSON), not the REST shape of /v1
  router.use(jsonRpcBodyErrors());

  const unsubscribe = store.bus.subscribe(SESSION_CLOSED, (message) => {
    const digest = message.session_sha256;
    if (typeof digest === 'string') {
      for (const id of [...sessions.keys()]) if (sessionDigest(id) === digest) void endSession(id);
    }
    // an instance from before the digest names the id
    else if (typeof message.id === 'string') void endSession(message.id);
  });
  unsubscribe.catch((error: Error) => logger?.warn({ err: error.message }, 'MCP sessions ended at other instances stay open here until evicted'));
  const purge = setInterval(() => void store.mcpSessions.purge(SESSION_IDLE_MS).catch(() => undefined), 60 * 60_000);
  purge.unref();

  return {
    router,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      clearInterval(purge);
      await (await unsubscribe.catch(() => undefined))?.();
      await Promise.allSettled([...restoring.values()]);
      await Promise.allSettled([...sessions.keys()].map(endSession));
    },
  };
}

/** The options a session was opened with, as recorded (only what this version knows); none without the principal it acts for. */
function sessionOptions(recorded: Record<string, unknown>): McpSessionOptions | undefined {
  const { toolsets, principal, session } = recorded;
  if (typeof principal !== 'string') return undefined;
  return { principal, ...(typeof session === 'string' ? { session } : {}), ...(Array.isArray(toolsets) && toolsets.every((name) => typeof name === 'string') ? { toolsets } : {}) };
}

// mounted behind principalAuth (serve); mounted bare, it serves the operator at this machine only while no credential is configured
function principalName(gateway: Gateway, response: Response): string | undefined {
  return (response.locals['principal'] as { name: string } | undefined)?.name ?? (gateway.principals.required ? undefined : LOCAL_PRINCIPAL.name);
}

/** The params of a lone JSON-RPC `initialize` request, if that is what the body is. */
function initializeParams(body: unknown): Record<string, unknown> | undefined {
  const message = Array.isArray(body) && body.length === 1 ? body[0] : body;
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  return method === 'initialize' && typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : undefined;
}

/** Mounts the MCP endpoint on `app` at `path` (default `/mcp`) behind `auth`, if given; close it before the HTTP server. */
export function mountMcp(app: Express, gateway: Gateway, options: McpHttpOptions & { path?: string; auth?: RequestHandler } = {}): McpHttpHandler {
  const handler = createMcpHttpHandler(gateway, options);
  const path = options.path ?? '/mcp';
  if (options.auth) app.use(path, options.auth, handler.router);
  else app.use(path, handler.router);
  return handler;
}

/** `?toolsets=a,b` as names; a message when it is given twice. */
function toolsetsOf(value: unknown): string[] | undefined | string {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return "Bad Request: give 'toolsets' once, as a comma-separated list: /mcp?toolsets=repo,ops";
  return value.split(',').map((name) => name.trim()).filter(Boolean);
}

/** How many characters of a client's capabilities are kept whole; past it, only their names (each a flag). */
const MAX_KEPT_CAPABILITIES_CHARS = 4096;

/**
 * What the store keeps of an initialize to replay it: the protocol version, the client's name and version, and its
 * capabilities — whole while small, else their names only. The whole params (up to the 1 MiB body limit) were kept a
 * day for every session any agent opened: ~1 MiB an initialize, 100 MB in 20 s from one client (review L, L4).
 */
function keptInitialize(params: Record<string, unknown>): Record<string, unknown> {
  const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');
  const info = typeof params['clientInfo'] === 'object' && params['clientInfo'] !== null ? (params['clientInfo'] as Record<string, unknown>) : {};
  const given = typeof params['capabilities'] === 'object' && params['capabilities'] !== null ? (params['capabilities'] as Record<string, unknown>) : {};
  // measured only when not too deep to measure: JSON.stringify of a deep one overflows the stack (review M, M5)
  const small = !exceedsDepth(given) && JSON.stringify(given).length <= MAX_KEPT_CAPABILITIES_CHARS;
  const capabilities = small ? given : Object.fromEntries(Object.keys(given).slice(0, 32).map((name) => [name.slice(0, 64), {}]));
  return { protocolVersion: text(params['protocolVersion'], 64), capabilities, clientInfo: { name: text(info['name'], 256), version: text(info['version'], 256) } };
}
