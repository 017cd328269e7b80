import { randomBytes } from 'node:crypto';
import type { DeploymentSecrets, StoreBus } from '../store.js';
import { BusVerifier, signBusPayload } from './bus-signature.js';
import type { Database } from './database.js';

/** The one channel every instance listens on; messages carry their topic. */
const CHANNEL = 'hldp_bus';

/** The row of `deployment_secrets` holding the bus's signing key (32 random bytes, base64), made by the first instance to ask. */
export const BUS_KEY_SECRET = 'bus-signing-key';

/** At most one report of refused payloads per this many ms: a flood of them must not flood the log. */
export const REFUSALS_REPORT_MS = 60_000;

/** What the bus says of payloads it refused: the first at once, then at most one count per period. */
export type BusWarn = (message: string, details: Record<string, unknown>) => void;

/** Options of the bus. */
export interface PostgresBusOptions {
  now?: () => number;
  warn?: BusWarn;
  /** the reporting period; default `REFUSALS_REPORT_MS` */
  reportEveryMs?: number;
}

/**
 * Messages between instances over LISTEN/NOTIFY, on one connection of its own that the client re-opens (and listens
 * on again) when it drops. A notification sent while it is down is lost: subscribers keep a poll as their fallback.
 * Every payload is signed with the deployment's bus key (bus-signature.ts), read from the store once, before the
 * first publish or subscription; one not signed with it is dropped and reported (rate-limited).
 */
export class PostgresBus implements StoreBus {
  readonly #sql: Database;
  readonly #secrets: DeploymentSecrets;
  readonly #now: () => number;
  readonly #refusals: RefusalReport;
  readonly #listeners = new Map<string, Set<(message: Record<string, unknown>) => void>>();
  #key: Promise<Buffer> | undefined;
  #verifier: BusVerifier | undefined;
  #listening: Promise<{ unlisten(): Promise<void> }> | undefined;

  constructor(sql: Database, secrets: DeploymentSecrets, options: PostgresBusOptions = {}) {
    this.#sql = sql;
    this.#secrets = secrets;
    this.#now = options.now ?? Date.now;
    this.#refusals = new RefusalReport(options.warn, options.reportEveryMs ?? REFUSALS_REPORT_MS);
  }

  async publish(topic: string, message: Record<string, unknown>): Promise<void> {
    await this.#sql.notify(CHANNEL, signBusPayload(await this.#signingKey(), topic, message, this.#now()));
  }

  async subscribe(topic: string, listener: (message: Record<string, unknown>) => void): Promise<() => Promise<void>> {
    const listeners = this.#listeners.get(topic) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(topic, listeners);
    try {
      const key = await this.#signingKey();
      // one verifier for the bus's life (two subscriptions made at once must not each make one: it holds the nonces seen)
      this.#verifier ??= new BusVerifier(key);
      this.#listening ??= this.#sql.listen(CHANNEL, (payload) => this.#deliver(payload)) as unknown as Promise<{ unlisten(): Promise<void> }>;
      await this.#listening;
    } catch (error) {
      this.#listening = undefined;
      listeners.delete(listener);
      throw error;
    }
    return async () => {
      listeners.delete(listener);
    };
  }

  /** stops listening */
  async close(): Promise<void> {
    this.#refusals.stop();
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening) await (await listening.catch(() => undefined))?.unlisten().catch(() => undefined);
  }

  /** the key, read (or made, by the first instance) once; a failed read is tried again at the next use */
  #signingKey(): Promise<Buffer> {
    this.#key ??= this.#secrets.getOrCreate(BUS_KEY_SECRET, () => randomBytes(32).toString('base64')).then((value) => {
      const key = Buffer.from(value, 'base64');
      if (key.length < 32) throw new Error(`the bus's signing key in the store ('${BUS_KEY_SECRET}' in deployment_secrets) is not 32 bytes of base64; delete that row and restart every instance`);
      return key;
    });
    this.#key.catch(() => (this.#key = undefined));
    return this.#key;
  }

  #deliver(payload: string): void {
    const verdict = this.#verifier!.verify(payload, this.#now());
    if ('refused' in verdict) {
      this.#refusals.add(verdict.refused);
      return;
    }
    for (const listener of this.#listeners.get(verdict.topic) ?? []) listener(verdict.message);
  }
}

/** Counts refused payloads by reason; reports the first at once and the rest once per period, while they come. */
class RefusalReport {
  readonly #warn: BusWarn | undefined;
  readonly #everyMs: number;
  #counts = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(warn: BusWarn | undefined, everyMs: number) {
    this.#warn = warn;
    this.#everyMs = everyMs;
  }

  add(reason: string): void {
    if (this.#timer) {
      this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
      return;
    }
    this.#warn?.(WHAT, { refused: { [reason]: 1 } });
    this.#timer = setTimeout(() => this.#flush(), this.#everyMs).unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#counts.size === 0) return;
    const refused = Object.fromEntries(this.#counts);
    this.#counts = new Map();
    this.#warn?.(`${WHAT} (counts since the last report, ${this.#everyMs / 1000} s ago)`, { refused });
    this.#timer = setTimeout(() => this.#flush(), this.#everyMs).unref();
  }
}

const WHAT =
  "dropped a message on the instances' bus: not signed with this deployment's key (another role that may connect to the database, or an instance from before bus signing), or stale (clocks over 2 minutes apart) or replayed";
