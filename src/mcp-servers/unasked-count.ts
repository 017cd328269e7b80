/** Messages no request of the gateway's asked for (notifications, the server's requests) allowed in a second; past it the server is stopped. */
export const UNASKED_PER_SECOND = 1000;

/** Why a server past UNASKED_PER_SECOND was stopped: for the gateway's log and the next call of its tools. */
export const UNASKED_FLOOD = `it sent messages that no request asked for faster than ${UNASKED_PER_SECOND} a second, past its allowance`;

/**
 * Bytes no request of the gateway's asked for allowed in a second (all it sent, read as they arrive); past it the server
 * is stopped. Four times the largest message a stdio server may send while no request waits (IDLE_MESSAGE_BYTES): one
 * line past that is skipped, as before, and the server kept.
 */
export const UNASKED_BYTES_PER_SECOND = 4 * 1024 * 1024;

/** Why a server past UNASKED_BYTES_PER_SECOND was stopped: for the gateway's log and the next call of its tools. */
export const UNASKED_BYTES_FLOOD = `it sent bytes that no request asked for faster than ${UNASKED_BYTES_PER_SECOND} a second, past its allowance`;

/** How many calls' allowances an HTTP server may hold unspent at once (see UnaskedCount): calls that log nothing bank no flood. */
export const CALLS_HELD = 5;

/**
 * A leaky bucket of `perSecond` (refilled at `perSecond`), behind what the calls sent give (`perCall` each, at most
 * CALLS_HELD calls' worth unspent): see UnaskedCount.
 */
class Allowance {
  #bucket: number;
  #at = Number.NEGATIVE_INFINITY;
  /** what the calls sent give, not yet spent */
  #calls = 0;

  constructor(
    private readonly perSecond: number,
    private readonly perCall: number,
    private readonly now: () => number,
  ) {
    this.#bucket = perSecond;
  }

  called(): void {
    this.#calls = Math.min(this.#calls + this.perCall, CALLS_HELD * this.perCall);
  }

  /** Takes `amount` from the calls' allowance, then (no request waiting) from the bucket; false once the bucket lacks it. */
  allows(amount: number, waiting: boolean): boolean {
    const fromCalls = Math.min(amount, Math.floor(this.#calls));
    this.#calls -= fromCalls;
    const rest = amount - fromCalls;
    if (rest === 0 || waiting) return true;
    const now = this.now();
    this.#bucket = Math.min(this.perSecond, this.#bucket + ((now - this.#at) * this.perSecond) / 1000);
    this.#at = now;
    if (this.#bucket < rest) return false;
    this.#bucket -= rest;
    return true;
  }
}

/**
 * The count of messages no request of the gateway's asked for that a server of either transport is held to (each costs
 * the gateway parsing and validation): a flood of notifications between calls held every request of the gateway for
 * minutes, from a stdio server (review Z11, Z11-4) and from an HTTP one on its standalone GET stream (review Z16,
 * Z16-4). While a call waits, its server may log and report progress as fast as it works (a batch of 3,000 items logged
 * one by one was stopped as broken: review Z12, finding 2).
 *
 * Between calls, a leaky bucket: each message takes one from an allowance of UNASKED_PER_SECOND, refilled at
 * UNASKED_PER_SECOND; a message finding it empty stops the server, whether it floods steadily or in bursts with quiet
 * seconds between them (the former "3 seconds running past 1,000 in a second" was reset by one quiet second, so a burst
 * had no bound: review Z19, Z19-4).
 *
 * Each call sent also gives `perCall` messages (none for stdio), spent by every unasked message, during a call or
 * after it, before the bucket is. An HTTP server's logs come on a stream of their own, with no order against a call's
 * answer: what a call logged is read after its answer as far as the gateway reads slower than the server writes, and
 * back-to-back calls pile their batches up — an SDK-built server logging 20,000 items a call was stopped after the
 * third call, by a rule of seconds and by one allowance refilled at each call alike (review Z19, Z19-6). Whatever the
 * two speeds, what is unread at any moment is at most `perCall` for each call sent less all that was read, and the
 * allowance left is never less than that: a server logging at most `perCall` a call is never stopped for its tail while
 * the gateway is at most CALLS_HELD calls' worth behind it (test/mcp-servers/unasked-count.property.test.ts). And every
 * unasked message is taken from a call's allowance or the bucket: a call lets through no more than it could have logged
 * while it waited, and a server flooding after one call is stopped once it has sent `perCall` + the bucket.
 *
 * Bytes are held alike, beside the messages (review Z21, Z21-5): a server sending a few notifications of 4-30 MB
 * between calls never neared the count of messages, and the gateway read, parsed and validated each whole (one
 * `/healthz` waited 5.6 s). Every byte the server sends is counted as it arrives, before a message is whole (`bytes`):
 * from `perCallBytes` each call sent, then, while no request waits, from a bucket of UNASKED_BYTES_PER_SECOND refilled
 * at UNASKED_BYTES_PER_SECOND; a chunk finding it short stops the server mid-message.
 */
export class UnaskedCount {
  readonly #messages: Allowance;
  readonly #bytes: Allowance;

  constructor(perCall = 0, now: () => number = () => performance.now(), perCallBytes = 0) {
    this.#messages = new Allowance(UNASKED_PER_SECOND, perCall, now);
    this.#bytes = new Allowance(UNASKED_BYTES_PER_SECOND, perCallBytes, now);
  }

  /** A call (`tools/call`) was sent: its server may send `perCall` more unasked messages (and `perCallBytes` bytes), during it or after its answer. */
  called(): void {
    this.#messages.called();
    this.#bytes.called();
  }

  /** Counts one such message; `waiting`: whether a request of the gateway's waits (then it is let through whatever the count). False once past the count. */
  allows(waiting: boolean): boolean {
    return this.#messages.allows(1, waiting);
  }

  /** Counts `count` bytes the server sent, as they arrive; `waiting` as for `allows`. False once past the count of bytes. */
  bytes(count: number, waiting: boolean): boolean {
    return this.#bytes.allows(count, waiting);
  }
}

/**
 * The request an answer of id `id` answers, as the SDK's Protocol matches it (`Number(response.id)`): a server answering
 * request 0 with `"0"` is answered, and its request must not stay waiting here, which turned the count off for good
 * (review Z18, Z18-1; both transports). An id that is no number is NaN, which no request of the SDK's has.
 */
export function answered(id: string | number): number {
  return Number(id);
}
