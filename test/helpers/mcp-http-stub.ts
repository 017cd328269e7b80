import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local MCP server over Streamable HTTP, its `/mcp` URL, whether the gateway dropped an answer, and how to stop it. */
export interface McpHttpStub {
  url: string;
  /** true once the connection of any `tools/call` answer closed before its end was read */
  closed(): boolean;
  close(): Promise<void>;
}

/**
 * A local server implementing the Streamable HTTP transport's contract as far as a call needs: `initialize` answered
 * in JSON (as server `name`), notifications accepted, anything but POST refused; every other request (a `tools/call`)
 * is answered by `answer`, given the response and the request's id. `onGet`, when given, takes each GET (the
 * transport's standalone event stream) instead of its 405.
 */
export async function startMcpHttpStub(name: string, answer: (response: ServerResponse, id: number) => void, onGet?: (response: ServerResponse) => void): Promise<McpHttpStub> {
  let closed = false;
  const server = createServer((request, response) => {
    if (request.method === 'GET' && onGet !== undefined) return void onGet(response);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void response.writeHead(202).end();
      if (message.method === 'initialize') {
        const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name, version: '1.0.0' } };
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      }
      response.once('close', () => (closed = true));
      answer(response, message.id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    closed: () => closed,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
