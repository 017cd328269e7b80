import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport, type WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's Streamable HTTP server transport for Node (what `StreamableHTTPServerTransport` does), plus `restore`:
 * a session another instance opened is brought up here by replaying the client's `initialize` and `initialized`
 * through the SDK's own web-standard transport, so the SDK's session checks and the server's state are the SDK's.
 */
export class SessionTransport implements Transport {
  readonly #web: WebStandardStreamableHTTPServerTransport;

  constructor(options: WebStandardStreamableHTTPServerTransportOptions) {
    this.#web = new WebStandardStreamableHTTPServerTransport(options);
  }

  get sessionId(): string | undefined {
    return this.#web.sessionId;
  }

  set onclose(handler: (() => void) | undefined) {
    this.#web.onclose = handler;
  }

  get onclose(): (() => void) | undefined {
    return this.#web.onclose;
  }

  set onerror(handler: ((error: Error) => void) | undefined) {
    this.#web.onerror = handler;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.#web.onerror;
  }

  set onmessage(handler: Transport['onmessage']) {
    this.#web.onmessage = handler;
  }

  get onmessage(): Transport['onmessage'] {
    return this.#web.onmessage;
  }

  start(): Promise<void> {
    return this.#web.start();
  }

  close(): Promise<void> {
    return this.#web.close();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.#web.send(message, options);
  }

  /** Serves one HTTP request (POST, GET or DELETE) of this session. */
  async handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void> {
    const listener = getRequestListener((webRequest) => this.#web.handleRequest(webRequest, { parsedBody }), { overrideGlobalObjects: false });
    await listener(request, response);
  }

  /** Replays `initialize` with the client's original params, then `notifications/initialized`; throws if the server refused them. */
  async restore(initialize: Record<string, unknown>, protocolVersion: string | undefined): Promise<void> {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      this.#web.handleRequest(
        new Request('http://restore.invalid/mcp', {
          method: 'POST',
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      );
    const params = protocolVersion ? { ...initialize, protocolVersion } : initialize;
    const initialized = await post({ jsonrpc: '2.0', id: 'restore', method: 'initialize', params });
    const answer = await initialized.text();
    if (!initialized.ok || !answer.includes('"result"')) throw new Error(`the session could not be restored: ${initialized.status} ${answer.slice(0, 200)}`);
    const session = { 'mcp-session-id': this.sessionId ?? '', ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}) };
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    if (notified.status !== 202) throw new Error(`the session could not be restored: initialized answered ${notified.status}`);
  }
}
