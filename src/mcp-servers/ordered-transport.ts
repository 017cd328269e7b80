import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The data of the error `unanswered` hands on: made here, so no server can send one. */
export class AnswerLost {
  constructor(readonly how: string) {}
}

// JSON-RPC's "internal error": not the SDK's ConnectionClosed, which drops the connection every other call shares
const INTERNAL_ERROR = -32603;

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
  /** requests sent whose answer has not been handed on */
  #unanswered = new Set<string | number>();

  constructor(readonly inner: Transport) {
    inner.onmessage = (message) =>
      this.#enqueue(() => {
        if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) this.#unanswered.delete(message.id);
        this.onmessage?.(message);
      });
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
    if ('method' in message) {
      if ('id' in message) this.#unanswered.add(message.id);
      else if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (cancelled !== undefined) this.#unanswered.delete(cancelled);
      }
    }
    return this.inner.send(message, options);
  }

  /**
   * Answers request `id` with an error whose data is an `AnswerLost` saying `how`, unless its answer was handed on first: its event stream ended
   * without one, and nothing else would settle it before its deadline. Handed on a turn of the event loop later, after
   * the messages the SDK was still reading from that stream.
   */
  unanswered(id: string | number, how: string): void {
    setImmediate(() =>
      this.#enqueue(() => {
        if (!this.#unanswered.delete(id)) return;
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `the event stream of the answer ${how}`, data: new AnswerLost(how) } });
      }),
    );
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
