import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport, type WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Notifications that only say "there is more" (read again, list again): while a stream is behind, the last of each is enough. */
const COALESCED = new Set(['notifications/resources/updated', 'notifications/resources/list_changed', 'notifications/tools/list_changed', 'notifications/prompts/list_changed']);

/**
 * Other messages for the session's GET stream taken while its client is not reading; past this the stream is ended (the
 * client opens it again), as GET /v1/events cuts a subscriber that fell behind.
 */
export const MAX_MESSAGES_BEHIND = 256;

/**
 * The SDK's Streamable HTTP server transport for Node (what `StreamableHTTPServerTransport` does), plus `restore`:
 * a session another instance opened is brought up here by replaying the client's `initialize` and `initialized`
 * through the SDK's own web-standard transport, so the SDK's session checks and the server's state are the SDK's.
 *
 * The SDK queues what goes on the session's GET stream whatever the socket takes: a client that opened it and stopped
 * reading made the gateway hold every notification for it (review Z16-2). While that response waits for a drain, a
 * notification that says "there is more" is held back, the last per URI (or per method), and sent at the drain; any
 * other message is passed on, and past MAX_MESSAGES_BEHIND of them the stream is ended.
 */
export class SessionTransport implements Transport {
  readonly #web: WebStandardStreamableHTTPServerTransport;
  /** the response of the session's GET stream while it is open */
  #stream: ServerResponse | undefined;
  /** notifications held back until the stream drains, by URI or method */
  readonly #held = new Map<string, JSONRPCMessage>();
  /** other messages passed on since the stream last drained */
  #behind = 0;

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
    const stream = this.#stream;
    // only what the SDK puts on the GET stream: no answer, no message related to a request (those go on its POST's stream)
    if (stream === undefined || !stream.writableNeedDrain || options?.relatedRequestId !== undefined || !('method' in message) || 'id' in message) return this.#web.send(message, options);
    const params = 'params' in message ? (message.params as { uri?: unknown } | undefined) : undefined;
    if (COALESCED.has(message.method)) {
      if (this.#held.size === 0 && this.#behind === 0) stream.once('drain', () => this.#drained(stream));
      this.#held.set(typeof params?.uri === 'string' ? `${message.method} ${params.uri}` : message.method, message);
      return Promise.resolve();
    }
    if (this.#held.size === 0 && this.#behind === 0) stream.once('drain', () => this.#drained(stream));
    this.#behind += 1;
    if (this.#behind > MAX_MESSAGES_BEHIND) {
      stream.destroy();
      return Promise.resolve();
    }
    return this.#web.send(message, options);
  }

  /** The GET stream caught up: what was held back goes out, once each. */
  #drained(stream: ServerResponse): void {
    const held = [...this.#held.values()];
    this.#held.clear();
    this.#behind = 0;
    if (this.#stream !== stream) return;
    for (const message of held) void this.#web.send(message).catch(() => undefined);
  }

  /** Serves one HTTP request (POST, GET or DELETE) of this session. */
  async handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (request.method === 'GET') this.#watch(response);
    const listener = getRequestListener((webRequest) => this.#web.handleRequest(webRequest, { parsedBody }), { overrideGlobalObjects: false });
    await listener(request, response);
  }

  /** Keeps the GET stream's response (the SDK takes one per session) until it closes. */
  #watch(response: ServerResponse): void {
    // a second GET while one is open is refused by the SDK (409): the open one stays the stream
    const open = this.#stream;
    if (open !== undefined && !open.destroyed && !open.writableEnded) return;
    response.once('close', () => {
      if (this.#stream !== response) return;
      this.#stream = undefined;
      this.#held.clear();
      this.#behind = 0;
    });
    this.#stream = response;
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
