/** Messages no request of the gateway's asked for (notifications, the server's requests) allowed in a second; past it the server is stopped. */
export const UNASKED_PER_SECOND = 1000;

/** Why a server past UNASKED_PER_SECOND was stopped: for the gateway's log and the next call of its tools. */
export const UNASKED_FLOOD = `it sent more than ${UNASKED_PER_SECOND} messages in a second that no request asked for`;

/**
 * The count of messages no request of the gateway's asked for, a second at a time, that a server of either transport is
 * held to (each costs the gateway parsing and validation): a flood of notifications between calls held every request of
 * the gateway for minutes, from a stdio server (review Z11, Z11-4) and from an HTTP one on its standalone GET stream
 * (review Z16, Z16-4). Only a server no request waits on is counted: while a call waits, its server may log and report
 * progress as fast as it works (a batch of 3,000 items logged one by one was stopped as broken: review Z12, finding 2).
 *
 * `seconds` is how many seconds running the server must be past the count to be stopped. An HTTP server's logs come on
 * a stream of their own, with no order against the call's answer, so a batch logged during a call may still be read
 * for a moment after its answer (review Z18, Z18-4): one second past the count is its tail, several running a flood.
 */
export class UnaskedCount {
  #count = 0;
  #since = Number.NEGATIVE_INFINITY;
  /** seconds running, before the current one, that were past the count */
  #past = 0;

  constructor(private readonly seconds = 1) {}

  /** Counts one such message: false once more than UNASKED_PER_SECOND came in the current second and in the `seconds` - 1 before it. */
  allows(): boolean {
    const now = performance.now();
    if (now - this.#since >= 1000) {
      // a second with no message between this one and the last breaks the run
      this.#past = this.#count > UNASKED_PER_SECOND && now - this.#since < 2000 ? this.#past + 1 : 0;
      this.#count = 0;
      this.#since = now;
    }
    this.#count += 1;
    return this.#count <= UNASKED_PER_SECOND || this.#past + 1 < this.seconds;
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
