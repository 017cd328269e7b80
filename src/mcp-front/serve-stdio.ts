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
 * Serves MCP over stdin/stdout. When stdin ends, requests already read are answered first, then the server
 * closes; when `signal` aborts, it closes at once (calls running are cancelled, and their receipts say so).
 */
export async function serveMcpStdio(gateway: Gateway, options: { streams?: StdioStreams; signal?: AbortSignal; toolsets?: readonly string[]; principal?: string } = {}): Promise<void> {
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
  const close = () => void server.close();
  // the SDK's stdio transport does not watch for the end of stdin: a client that is done ends the server here
  const finish = () => void pending.idle().then(close);
  stdin.once('end', finish);
  stdin.once('close', finish);
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();
  await closed;
  stdin.off('end', finish);
  stdin.off('close', finish);
  options.signal?.removeEventListener('abort', close);
}

/** Counts requests read but not yet answered, by watching the transport's messages in and out. */
function trackRequests(transport: StdioServerTransport): { idle(): Promise<void> } {
  const open = new Set<string | number>();
  let waiters: Array<() => void> = [];
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) open.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined) open.delete(message.id);
    if (open.size === 0) for (const wake of waiters.splice(0)) wake();
  };
  return {
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (waiters = [...waiters, resolve]))),
  };
}
