import type { Readable, Writable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LOCAL_PRINCIPAL } from '../policy/index.js';
import type { Gateway } from '../gateway/service/index.js';

/** Where the stdio server reads and writes: stdout is the protocol channel only. */
export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
}

/**
 * Serves MCP over stdin/stdout. When stdin ends, or `finish` aborts, requests already read are answered first, then
 * the server closes; when `signal` aborts, it closes at once (calls running are cancelled, and their receipts say so).
 * A client gone (stdout closed: EPIPE) is a caller that hung up: the server closes, its calls cancelled, receipts stored.
 */
export async function serveMcpStdio(
  gateway: Gateway,
  options: { streams?: StdioStreams; signal?: AbortSignal; finish?: AbortSignal; toolsets?: readonly string[]; principal?: string; onProblem?: (message: string) => void } = {},
): Promise<void> {
  const { stdin, stdout } = options.streams ?? { stdin: process.stdin, stdout: process.stdout };
  // loaded here, not by the folder's index: `hldp serve` imports the index for /mcp and listens without the SDK (issue #18)
  const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([import('./create-mcp-server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
  // the operator at this machine unless the command was given a principal's token
  const server = createMcpServer(gateway, { principal: options.principal ?? LOCAL_PRINCIPAL.name, ...(options.toolsets ? { toolsets: options.toolsets } : {}) });
  const closed = new Promise<void>((resolve) => {
    const stopListening = server.onclose;
    server.onclose = () => {
      stopListening?.();
      resolve();
    };
  });
  const transport = new StdioServerTransport(stdin, stdout);
  await server.connect(transport);
  const pending = trackRequests(transport);
  answerUnreadLines(transport, options.onProblem ?? (() => undefined));
  const close = () => void server.close();
  // the SDK's stdio transport does not watch for the end of stdin: a client that is done ends the server here
  const finish = () => void pending.idle().then(close);
  stdin.once('end', finish);
  stdin.once('close', finish);
  // a client that exits closes our stdout too: an unhandled EPIPE ended the process, and the receipts of its calls
  // still running with it (found checking how hldp mcp ends, review N, N10). Its calls are cancelled, as an HTTP
  // caller's that hangs up: no one is left to read their answers, and each stores its CANCELLED receipt
  const gone = (): void => close();
  stdout.on('error', gone);
  options.signal?.addEventListener('abort', close, { once: true });
  options.finish?.addEventListener('abort', finish, { once: true });
  if (options.signal?.aborted) close();
  if (options.finish?.aborted) finish();
  await closed;
  stdin.off('end', finish);
  stdin.off('close', finish);
  options.signal?.removeEventListener('abort', close);
  options.finish?.removeEventListener('abort', finish);
  // a late write to a closed stdout must not end the process: the command still closes the gateway (its receipts)
  stdout.off('error', gone);
  stdout.on('error', () => undefined);
}

// what of a line's error is said back: a parser's message may quote the whole line
const MAX_PROBLEM_CHARACTERS = 200;

/**
 * A line that is not JSON, or not a JSON-RPC message, was dropped by the SDK without a word (its transport's onerror,
 * which the server does not handle): a client author debugging a framing bug saw nothing (review R, R7). JSON-RPC's
 * answer for it is an error with id null: -32700 for a line that is not JSON, -32600 for one that is not a message.
 * Said on stderr too (`onProblem`), with any other error of the transport.
 */
function answerUnreadLines(transport: StdioServerTransport, onProblem: (message: string) => void): void {
  const report = transport.onerror;
  transport.onerror = (error: Error) => {
    report?.(error);
    const reason = error.message.length > MAX_PROBLEM_CHARACTERS ? `${error.message.slice(0, MAX_PROBLEM_CHARACTERS)}…` : error.message;
    const unread = error instanceof SyntaxError ? { code: -32700, message: `Parse error: a line that is not JSON was dropped (${reason})` } : error.name === 'ZodError' ? { code: -32600, message: 'Invalid Request: a line that is not a JSON-RPC 2.0 message was dropped' } : undefined;
    onProblem(unread ? unread.message : `stdio transport: ${reason}`);
    if (unread) void transport.send({ jsonrpc: '2.0', id: null, error: unread } as unknown as JSONRPCMessage).catch(() => undefined);
  };
}

/** Counts requests read but not yet answered, by watching the transport's messages in and out. */
function trackRequests(transport: StdioServerTransport): { idle(): Promise<void> } {
  const open = new Set<string | number>();
  let waiters: Array<() => void> = [];
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) open.add(message.id);
    receive?.(message);
    // a cancelled request is never answered, as the protocol says: counted open, it held the exit for good (review userU, F10)
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if ((typeof id === 'string' || typeof id === 'number') && open.delete(id) && open.size === 0) for (const wake of waiters.splice(0)) wake();
    }
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      // an answer that could not be written (the client gone) is not waited for again
      if (!('method' in message) && 'id' in message && message.id !== undefined) open.delete(message.id);
      if (open.size === 0) for (const wake of waiters.splice(0)) wake();
    }
  };
  return {
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (waiters = [...waiters, resolve]))),
  };
}
