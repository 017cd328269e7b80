import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that hands messages on one microtask apart, in arrival order. The SDK's `Protocol` runs a
 * notification's handler a microtask later but settles a response at once, so a server's last
 * `notifications/progress` sent just before its result, read in the same chunk, would find its request already
 * settled and be dropped (modelcontextprotocol/typescript-sdk#2580). Delivered apart, each notification's handler
 * runs before the next message is looked at.
 */
export class OrderedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #delivery: Promise<void> = Promise.resolve();

  constructor(readonly inner: Transport) {
    inner.onmessage = (message) => this.#enqueue(() => this.onmessage?.(message));
    inner.onerror = (error) => this.onerror?.(error);
    // the end comes after the messages read before it
    inner.onclose = () => this.#enqueue(() => this.onclose?.());
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  #enqueue(deliver: () => void): void {
    this.#delivery = this.#delivery.then(deliver).catch((error: unknown) => this.onerror?.(error as Error));
  }
}
