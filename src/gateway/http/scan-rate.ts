/** Rescans that found nothing new one principal may ask with `POST /v1/scan` per minute; a burst of as many is allowed (review Z8, Z8-9). */
export const SCANS_PER_MINUTE = 10;

const MINUTE_MS = 60_000;
// principals are the configured ones: a few hundred buckets at most; the bound is for safety
const MAX_BUCKETS = 10_000;

/**
 * A token bucket per principal for `POST /v1/scan`: concurrent requests already share one rescan, but a loop of them
 * ran rescans back to back — one agent's 4 loops made 305 scans of a 10,000-tool folder in 20 s, ~0.3 of a core, and
 * on a remote source as many ref listings times the instances. Only a rescan that found nothing new is `charge`d: a
 * script that commits and rescans finds its commit each time and is never refused, whoever runs it, while a loop that
 * finds nothing is held to the rate, an admin's too — on a gateway without credentials every client is `local`, an
 * admin, and an exempt admin left the bound to nobody there (review Z9, Z9-9). `wait` answers how many seconds to wait
 * before a rescan may start, 0 when one may.
 */
export class ScanRate {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly perMinute = SCANS_PER_MINUTE, private readonly now: () => number = Date.now) {}

  wait(principal: string): number {
    const tokens = this.#refilled(principal).tokens;
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * MINUTE_MS) / this.perMinute / 1000));
  }

  /** A rescan that found nothing new takes a turn; requests that ran at once may take the bucket below empty, down to a minute's worth. */
  charge(principal: string): void {
    const bucket = this.#refilled(principal);
    bucket.tokens = Math.max(-this.perMinute, bucket.tokens - 1);
  }

  #refilled(principal: string): { tokens: number; at: number } {
    const time = this.now();
    const bucket = this.#buckets.get(principal) ?? { tokens: this.perMinute, at: time };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((time - bucket.at) * this.perMinute) / MINUTE_MS);
    bucket.at = time;
    this.#buckets.delete(principal);
    this.#buckets.set(principal, bucket);
    if (this.#buckets.size > MAX_BUCKETS) this.#buckets.delete(this.#buckets.keys().next().value!);
    return bucket;
  }
}
