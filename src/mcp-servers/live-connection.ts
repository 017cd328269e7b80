import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_OPEN_EXCHANGES } from './bounded-fetch.js';
import type { ClientKit } from './client-kit.js';
import type { Received } from './ordered-transport.js';
import type { LaunchedStdioTransport } from './stdio-transport.js';

/** A started server's connection: its client and transport, what it sent, and how it ended, once known. */
export interface Live {
  client: Client;
  transport: LaunchedStdioTransport | StreamableHTTPClientTransport;
  /** the SDK it was made with (loaded on the first start) */
  kit: ClientKit;
  /** how it ended, worked out once */
  ending?: Promise<{ how: string; stderr: string }>;
  /** the client saw its transport close: set before the SDK fails the requests still waiting on it */
  closed?: boolean;
  /** what the server sent besides answers (requests, notifications) */
  received: Received;
  /** POSTs to an HTTP server not sent, since as many exchanges as one server may have were waiting */
  refused: { count: number };
  /** why the gateway closed an HTTP server's connection, when the server broke the protocol (a stdio server's transport says it) */
  broke?: string;
  /** the principals whose calls this server process served ('' for a call that names none) */
  callers: Set<string>;
}

/** What a server sent while a call waited in vain, when it sent anything besides answers: for the call's receipt. */
export function heardNote(server: string, received: Received, refused: number): string | undefined {
  if (received.requests === 0 && received.notifications === 0 && refused === 0) return undefined;
  const methods = [...received.methods].map(([method, count]) => `${method} ×${count}`).join(', ');
  const sent = `while the call waited, MCP server '${server}' sent ${received.requests} requests and ${received.notifications} notifications${methods === '' ? '' : ` (${methods})`}`;
  const unsent = refused === 0 ? '' : `; ${refused} messages of the gateway to it were not sent, since ${MAX_OPEN_EXCHANGES} exchanges with it were waiting unanswered, the most one server may have open`;
  return sent + unsent;
}

/** The server's last words, when it left any, as the end of a sentence. */
export function stderrLine(stderr: string): string {
  return stderr === '' ? '' : `. Its stderr ended with:\n${stderr}`;
}

/**
 * The stderr line for the outcome of a call of `caller`: a server process serves every principal's calls, and servers
 * log the calls they serve on stderr, arguments and all; so its tail is told only when every call it served was this
 * principal's, and otherwise withheld, saying why (review S, S6: one principal read another's arguments there).
 */
export function stderrLineFor(live: Live, caller: string | undefined, stderr: string): string {
  if (stderr === '') return '';
  const others = [...live.callers].some((served) => served !== (caller ?? ''));
  return others ? `. Its stderr is not shown: the server also served other principals' calls, which servers may log there` : stderrLine(stderr);
}

/**
 * Whether a failed request means the connection is gone, so a fresh one can help: `during the call` when it closed
 * while the server had the request (it may have run), `before the call` when the request never reached a server that
 * could run it (a session the server no longer knows, a transport already closed); undefined for any other error.
 * Told by where the error came from, not by its code: the SDK's "connection closed" is -32000, the first code of
 * JSON-RPC's server-error range, which a server may answer with itself; only the client's own close makes it a loss.
 */
export function connectionLost(error: unknown, { closed, kit: { McpError, RpcErrorCode } }: Live): 'during the call' | 'before the call' | undefined {
  if (error instanceof McpError) return closed === true && error.code === RpcErrorCode.ConnectionClosed ? 'during the call' : undefined;
  const code = (error as { code?: unknown }).code;
  // Streamable HTTP: 404 is a session the server no longer knows
  if (code === 404) return 'before the call';
  return error instanceof Error && /Not connected/.test(error.message) ? 'before the call' : undefined;
}

/** How the event stream of a request's answer ended without it (`OrderedTransport.unanswered`), or undefined. */
export function answerLost(error: unknown, { McpError, AnswerLost }: ClientKit): string | undefined {
  return error instanceof McpError && error.data instanceof AnswerLost ? error.data.how : undefined;
}
