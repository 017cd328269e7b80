/** How much a model stage may ask its endpoint: per principal, and at once (review L, L8). */
export interface ModelLimitOptions {
  /** model requests one principal may cause per minute; a burst of as many is allowed (default 20) */
  perPrincipalPerMinute?: number;
  /** model requests in flight at once, for every principal together (default 4) */
  maxConcurrent?: number;
}

// the defaults of matcher.model.per_principal_per_minute and matcher.model.max_concurrent
const DEFAULT_PER_PRINCIPAL_PER_MINUTE = 20;
const DEFAULT_MAX_CONCURRENT = 4;

const MINUTE_MS = 60_000;
// principals are the configured ones (and the one anonymous caller): a few hundred buckets at most; the bound is for safety
const MAX_BUCKETS = 10_000;

/**
 * Admits model requests: a token bucket per principal (refilled continuously, `perPrincipalPerMinute` deep) and a
 * count of requests in flight. `admit` answers why not, or undefined and takes a token and a slot until `release`.
 */
export class ModelLimits {
  private readonly perMinute: number;
  private readonly maxConcurrent: number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private inFlight = 0;

  constructor(options: ModelLimitOptions, private readonly now: () => number) {
    this.perMinute = options.perPrincipalPerMinute ?? DEFAULT_PER_PRINCIPAL_PER_MINUTE;
    this.maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  }

  /** Why `principal` may not ask the model now (the words' answer stands), or undefined after taking its turn. */
  admit(principal: string | undefined): string | undefined {
    if (this.inFlight >= this.maxConcurrent) {
      return `the model stage was not asked: ${this.maxConcurrent} model requests are running (matcher.model.max_concurrent); ask again shortly for the model's answer`;
    }
    const key = principal ?? '';
    const time = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: time };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((time - bucket.at) * this.perMinute) / MINUTE_MS);
    bucket.at = time;
    this.remember(key, bucket);
    if (bucket.tokens < 1) {
      const waitSeconds = Math.ceil(((1 - bucket.tokens) * MINUTE_MS) / this.perMinute / 1000);
      return `the model stage was not asked: ${principal === undefined ? 'this caller' : `'${principal}'`} asked it ${this.perMinute} times in the last minute (matcher.model.per_principal_per_minute); the model can be asked again in ${waitSeconds} s`;
    }
    bucket.tokens -= 1;
    this.inFlight += 1;
    return undefined;
  }

  /** Gives back the slot an admitted request held. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  private remember(key: string, bucket: { tokens: number; at: number }): void {
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) {
      const [oldest] = this.buckets.keys();
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
  }
}
