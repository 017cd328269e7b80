/** Messages no request of the gateway's asked for (notifications, the server's requests) allowed in a second; past it the server is stopped. */
export const UNASKED_PER_SECOND = 1000;

/** Why a server that spent its allowance (UnaskedCount) was stopped: for the gateway's log and the next call of its tools. */
export const UNASKED_FLOOD = `it sent messages that no request asked for faster than ${UNASKED_PER_SECOND} a second, past its allowance`;

/**
 * The allowance of messages no request of the gateway's asked for that a server of either transport is held to (each
 * costs the gateway parsing and validation): a flood of notifications between calls held every request of the gateway
 * for minutes, from a stdio server (review Z11, Z11-4) and from an HTTP one on its standalone GET stream (review Z16,
 * Z16-4). Only a server no request waits on is counted: while a call waits, its server may log and report progress as
 * fast as it works (a batch of 3,000 items logged one by one was stopped as broken: review Z12, finding 2).
 *
 * A leaky bucket: each message takes one from an allowance of `capacity`, refilled at UNASKED_PER_SECOND; a message
 * finding it empty stops the server. So over any stretch of time a server is stopped once it sent more than
 * `capacity` + UNASKED_PER_SECOND a second, whether steadily or in bursts; a flood between calls at a rate r is stopped
 * after capacity / (r - UNASKED_PER_SECOND) seconds. It replaces "N seconds running past 1000 in a second", which a
 * quiet second reset, so bursts inside one second had no bound (review Z19, Z19-4), and whose 3 s did not cover the
 * tail of a batch of 20,000 logs (Z19-6).
 */
export class UnaskedCount {
  #allowance: number;
  #at = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly capacity = UNASKED_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#allowance = capacity;
  }

  /** Fills the allowance again: what is read after a call's answer is that call's own tail (see OrderedTransport). */
  refill(): void {
    this.#allowance = this.capacity;
  }

  /** Counts one such message: false once the allowance is spent. */
  allows(): boolean {
    const now = this.now();
    this.#allowance = Math.min(this.capacity, this.#allowance + ((now - this.#at) * UNASKED_PER_SECOND) / 1000);
    this.#at = now;
    if (this.#allowance < 1) return false;
    this.#allowance -= 1;
    return true;
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
