import type { StoreBus } from '../store.js';
import type { Database } from './database.js';

/** The one channel every instance listens on; messages carry their topic. */
const CHANNEL = 'hldp_bus';

/**
 * Messages between instances over LISTEN/NOTIFY, on one connection of its own that the client re-opens (and listens
 * on again) when it drops. A notification sent while it is down is lost: subscribers keep a poll as their fallback.
 */
export class PostgresBus implements StoreBus {
  readonly #sql: Database;
  readonly #listeners = new Map<string, Set<(message: Record<string, unknown>) => void>>();
  #listening: Promise<{ unlisten(): Promise<void> }> | undefined;

  constructor(sql: Database) {
    this.#sql = sql;
  }

  async publish(topic: string, message: Record<string, unknown>): Promise<void> {
    await this.#sql.notify(CHANNEL, JSON.stringify({ topic, message }));
  }

  async subscribe(topic: string, listener: (message: Record<string, unknown>) => void): Promise<() => Promise<void>> {
    const listeners = this.#listeners.get(topic) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(topic, listeners);
    this.#listening ??= this.#sql.listen(CHANNEL, (payload) => this.#deliver(payload)) as unknown as Promise<{ unlisten(): Promise<void> }>;
    try {
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
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening) await (await listening.catch(() => undefined))?.unlisten().catch(() => undefined);
  }

  #deliver(payload: string): void {
    let parsed: { topic?: unknown; message?: unknown };
    try {
      parsed = JSON.parse(payload) as typeof parsed;
    } catch {
      // another program's NOTIFY on our channel: not ours to read
      return;
    }
    if (typeof parsed.topic !== 'string' || typeof parsed.message !== 'object' || parsed.message === null) return;
    for (const listener of this.#listeners.get(parsed.topic) ?? []) listener(parsed.message as Record<string, unknown>);
  }
}
