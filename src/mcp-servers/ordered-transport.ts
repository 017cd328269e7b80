import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { answered, UNASKED_BYTES_FLOOD, UNASKED_FLOOD, UnaskedCount } from './unasked-count.js';

/** The data of the error `unanswered` hands on: made here, so no server can send one. */
export class AnswerLost {
  constructor(readonly how: string) {}
}

/** What a server sent besides answers: requests and notifications, counted by method (the first few methods by name). */
export class Received {
  requests = 0;
  notifications = 0;
  /** count per method, for at most MAX_NAMED methods (a server chooses the names: the rest are counted only in the totals) */
  readonly methods = new Map<string, number>();

  count(method: string, isRequest: boolean): void {
    if (isRequest) this.requests += 1;
    else this.notifications += 1;
    const name = method.length > 64 ? `${method.slice(0, 64)}…` : method;
    const seen = this.methods.get(name);
    if (seen !== undefined) this.methods.set(name, seen + 1);
    else if (this.methods.size < MAX_NAMED) this.methods.set(name, 1);
  }

  /** What was counted since `before` (a copy taken earlier). */
  since(before: Received): Received {
    const difference = new Received();
    difference.requests = this.requests - before.requests;
    difference.notifications = this.notifications - before.notifications;
    for (const [name, count] of this.methods) if (count > (before.methods.get(name) ?? 0)) difference.methods.set(name, count - (before.methods.get(name) ?? 0));
    return difference;
  }

  copy(): Received {
    return this.since(new Received());
  }
}

const MAX_NAMED = 8;

/**
 * The unasked messages each `tools/call` sent lets an HTTP server send (UnaskedCount): an SDK-built server's logs come
 * on its standalone GET stream, with no order against the call's answer, so what of a batch logged during the call is
 * not read by the answer is read after it (a batch of 20,000 items: review Z19, Z19-6). A flood after a call read at r a
 * second is stopped after 20,000 / r + 1,000 / (r - 1,000) s (at load 15 on 2 cores the gateway read ~2,800 a second).
 */
const PER_CALL = 20_000;

/**
 * The bytes each `tools/call` sent lets an HTTP server send unasked, beside PER_CALL messages, for the same reason:
 * 20,000 log lines of up to ~800 bytes each, events and all (review Z21, Z21-5).
 */
const PER_CALL_BYTES = 16 * 1024 * 1024;

// JSON-RPC's "internal error": not the SDK's ConnectionClosed, which drops the connection every other call shares
const INTERNAL_ERROR = -32603;

/**
 * A transport that hands messages on one microtask apart, in arrival order. The SDK's `Protocol` runs a
 * notification's handler a microtask later but settles a response at once, so a server's last
 * `notifications/progress` sent just before its result, read in the same chunk, would find its request already
 * settled and be dropped (modelcontextprotocol/typescript-sdk#2580). Delivered apart, each notification's handler
 * runs before the next message is looked at.
 *
 * Given `onBroke`, it also holds the server to UnaskedCount, as the stdio transport holds its own (which counts lines
 * before they are parsed): what counts is every request and notification of the server's, every answer to no request
 * waiting (ids matched as the SDK matches them, `answered()`), and every message the SDK could not read, while no
 * request of ours waits, past what the calls sent allow (PER_CALL each). Past the count the connection is closed, what
 * the server still sends is dropped, and the next call connects anew: a batch an SDK server logs on its standalone GET
 * stream during a call is still read after the call's answer, as the two streams have no order between them (review
 * Z18, Z18-4; Z19, Z19-6). An HTTP server streaming notifications on its standalone GET stream was read, parsed and
 * validated for the idle_ms after every call (review Z16, Z16-4: 20 % of the gateway's core, /healthz 5 → 165 ms).
 */
export class OrderedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #delivery: Promise<void> = Promise.resolve();
  /** requests sent whose answer has not been handed on */
  #unanswered = new Set<number>();
  /** what the server sent besides answers, since the connection started */
  readonly received = new Received();
  readonly #unasked = new UnaskedCount(PER_CALL, undefined, PER_CALL_BYTES);
  /** why the connection was closed for breaking the protocol */
  #broke: string | undefined;

  constructor(
    readonly inner: Transport,
    private readonly onBroke?: (why: string) => void,
  ) {
    inner.onmessage = (message) =>
      this.#enqueue(() => {
        if (this.#broke !== undefined) return;
        if ('method' in message && typeof message.method === 'string') {
          this.received.count(message.method, 'id' in message && message.id !== undefined);
          if (!this.#allowed()) return;
        } else if (!('id' in message) || message.id === undefined || !this.#unanswered.delete(answered(message.id))) {
          // an answer to no request asked (or no message at all): the SDK reads, validates and reports it as well (review Z18, Z18-1)
          if (!this.#allowed()) return;
        }
        this.onmessage?.(message);
      });
    // what the SDK could not read (bad JSON, not JSON-RPC) is counted too: the stdio transport counts lines before they are parsed
    inner.onerror = (error) => {
      if (this.#broke === undefined && this.#allowed()) this.onerror?.(error);
    };
    // the end comes after the messages read before it
    inner.onclose = () => this.#enqueue(() => this.onclose?.());
  }

  /** Why the gateway closed the connection, when the server broke the protocol. */
  get broke(): string | undefined {
    return this.#broke;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message) {
      if ('id' in message) {
        this.#unanswered.add(answered(message.id));
        if (message.method === 'tools/call') this.#unasked.called();
      } else if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (cancelled !== undefined) this.#unanswered.delete(answered(cancelled));
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
        if (!this.#unanswered.delete(answered(id))) return;
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

  /**
   * Counts `count` bytes the server sent, on any of its streams, as they arrive (the fetch tells them, before the SDK
   * reads them): they are held to the count of bytes no request asked for as messages are to theirs, and past it the
   * connection is closed alike. False once closed so.
   */
  bytes(count: number): boolean {
    if (this.#broke !== undefined) return false;
    if (this.onBroke === undefined || this.#unasked.bytes(count, this.#unanswered.size > 0)) return true;
    this.#stop(UNASKED_BYTES_FLOOD);
    return false;
  }

  /** Whether a request or notification of the server's may be handed on: past the count of unasked ones, the connection is closed. */
  #allowed(): boolean {
    if (this.onBroke === undefined || this.#unasked.allows(this.#unanswered.size > 0)) return true;
    this.#stop(UNASKED_FLOOD);
    return false;
  }

  #stop(why: string): void {
    this.#broke = why;
    this.onBroke!(why);
    this.inner.close().catch((error: unknown) => this.onerror?.(error as Error));
  }

  #enqueue(deliver: () => void): void {
    this.#delivery = this.#delivery.then(deliver).catch((error: unknown) => this.onerror?.(error as Error));
  }
}
