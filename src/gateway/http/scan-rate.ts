/** Rescans one principal may start with `POST /v1/scan` per minute; a burst of as many is allowed (review Z8, Z8-9). */
export const SCANS_PER_MINUTE = 10;

const MINUTE_MS = 60_000;
// principals are the configured ones: a few hundred buckets at most; the bound is for safety
const MAX_BUCKETS = 10_000;

/**
 * A token bucket per principal for `POST /v1/scan`: concurrent requests already share one rescan, but a loop of them
 * ran rescans back to back — one agent's 4 loops made 305 scans of a 10,000-tool folder in 20 s, ~0.3 of a core, and
 * on a remote source as many ref listings times the instances. `take` answers how many seconds to wait, or 0 after
 * taking a turn.
 */
export class ScanRate {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly perMinute = SCANS_PER_MINUTE, private readonly now: () => number = Date.now) {}

  take(principal: string): number {
    const time = this.now();
    const bucket = this.#buckets.get(principal) ?? { tokens: this.perMinute, at: time };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((time - bucket.at) * this.perMinute) / MINUTE_MS);
    bucket.at = time;
    this.#buckets.delete(principal);
    this.#buckets.set(principal, bucket);
    if (this.#buckets.size > MAX_BUCKETS) this.#buckets.delete(this.#buckets.keys().next().value!);
    if (bucket.tokens < 1) return Math.max(1, Math.ceil(((1 - bucket.tokens) * MINUTE_MS) / this.perMinute / 1000));
    bucket.tokens -= 1;
    return 0;
  }
}
