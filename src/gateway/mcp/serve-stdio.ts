import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Gateway } from '../service/index.js';
import { createMcpServer } from './create-mcp-server.js';

/** Where the stdio server reads and writes: stdout is the protocol channel only. */
export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
}

/** Serves MCP over stdin/stdout; resolves when the client closes stdin or `signal` aborts (then the server is closed). */
export async function serveMcpStdio(gateway: Gateway, options: { streams?: StdioStreams; signal?: AbortSignal } = {}): Promise<void> {
  const { stdin, stdout } = options.streams ?? { stdin: process.stdin, stdout: process.stdout };
  const server = createMcpServer(gateway);
  const closed = new Promise<void>((resolve) => {
    const stopListening = server.onclose;
    server.onclose = () => {
      stopListening?.();
      resolve();
    };
  });
  // the SDK's stdio transport does not watch for the end of stdin: a client that goes away ends the server here
  const close = () => void server.close();
  stdin.once('end', close);
  stdin.once('close', close);
  options.signal?.addEventListener('abort', close, { once: true });
  await server.connect(new StdioServerTransport(stdin, stdout));
  if (options.signal?.aborted) close();
  await closed;
  stdin.off('end', close);
  stdin.off('close', close);
  options.signal?.removeEventListener('abort', close);
}
