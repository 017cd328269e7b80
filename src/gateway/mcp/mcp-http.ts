import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express, type RequestHandler, type Response, type Router } from 'express';
import { isLoopback } from '../../core/index.js';
import { loopbackHostGuard } from '../../http-edge/index.js';
import type { Gateway } from '../service/index.js';
import { createMcpServer } from './create-mcp-server.js';

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
  transport: StreamableHTTPServerTransport;
  server: Server;
}

const DEFAULT_MAX_SESSIONS = 100;

/**
 * MCP over Streamable HTTP, with sessions: each session is one MCP server over `gateway`, so that
 * `notifications/tools/list_changed` reaches the client on its GET stream when a rescan changes the tools.
 */
export function createMcpHttpHandler(gateway: Gateway, options: McpHttpOptions = {}): McpHttpHandler {
  // insertion order is recency: a session is moved to the end each time it is used
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const router = express.Router();
  // DNS-rebinding protection, as the MCP transport spec asks: the same check `createApp` makes, so that
  // the handler is safe mounted on its own too
  if (isLoopback(gateway.config.listen.host)) router.use(loopbackHostGuard());

  const endSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    sessions.delete(id);
    await session?.server.close();
  };

  const openSession = async (request: express.Request, response: Response): Promise<void> => {
    // connect-time selection (the first of three delivery levels): /mcp?toolsets=repo,ops
    const toolsets = toolsetsOf(request.query['toolsets']);
    if (typeof toolsets === 'string') return rpcError(response, 400, -32602, toolsets);
    const unknown = (toolsets ?? []).filter((name) => !gateway.sessions.registryView().toolset(name));
    if (unknown.length) {
      const available = gateway.registry.index.toolsets.map((toolset) => toolset.name).join(', ') || 'none';
      return rpcError(response, 400, -32602, `Bad Request: no toolset ${unknown.join(', ')}; available: ${available}`);
    }
    const server = createMcpServer(gateway, toolsets ? { toolsets } : {});
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
        const [oldest] = sessions.keys();
        if (sessions.size > maxSessions && oldest !== undefined) void endSession(oldest);
      },
      onsessionclosed: (id) => void sessions.delete(id),
      maxRequestBodySize: gateway.config.maxBodyBytes,
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
    // anything but an initialize request was answered with 400 by the transport: there is no session to keep
    if (transport.sessionId === undefined) await server.close();
  };

  router.all('/', async (request, response) => {
    const id = request.get('mcp-session-id');
    if (id === undefined) {
      if (request.method === 'POST') return openSession(request, response);
      return rpcError(response, 400, -32000, 'Bad Request: no Mcp-Session-Id header; POST an initialize request first to open a session');
    }
    const session = sessions.get(id);
    // 404 tells the client to start a new session (the session ended, was evicted, or the server restarted)
    if (!session) return rpcError(response, 404, -32001, `Session not found: '${id}' is not open; initialize a new session`);
    sessions.delete(id);
    sessions.set(id, session);
    await session.transport.handleRequest(request, response, request.body);
  });

  return {
    router,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      await Promise.allSettled([...sessions.keys()].map(endSession));
    },
  };
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

function rpcError(response: Response, status: number, code: number, message: string): void {
  response.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}
