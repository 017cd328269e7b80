import { EventEmitter } from 'node:events';
import type { StoreBus } from './store.js';

/** The bus of a store no other process shares messages through (SQLite): delivered within this process only. */
export class LocalBus implements StoreBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  async publish(topic: string, message: Record<string, unknown>): Promise<void> {
    // delivered on a later turn, as a notification from the database would be
    const copy = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
    setImmediate(() => this.#emitter.emit(topic, copy));
  }

  async subscribe(topic: string, listener: (message: Record<string, unknown>) => void): Promise<() => Promise<void>> {
    this.#emitter.on(topic, listener);
    return async () => {
      this.#emitter.off(topic, listener);
    };
  }
}
