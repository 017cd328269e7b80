import type { Database, Statement } from 'better-sqlite3';
import { SIGN_OUT_KEPT_PAST_EXPIRY_MS, type SignOutList } from './store.js';

/** Console sign-outs in the `console_sign_outs` table; each sign-out drops the rows whose cookies expired an hour or more ago. */
export class SqliteSignOuts implements SignOutList {
  readonly #insert: Statement<[string, number]>;
  readonly #prune: Statement<[number]>;
  readonly #get: Statement<[string], { id: string }>;
  readonly #now: () => number;
  readonly #add: (id: string, expiresMs: number) => void;

  constructor(database: Database, options: { now: () => number }) {
    this.#insert = database.prepare('INSERT OR IGNORE INTO console_sign_outs (id, expires_ms) VALUES (?, ?)');
    this.#prune = database.prepare('DELETE FROM console_sign_outs WHERE expires_ms <= ?');
    this.#get = database.prepare('SELECT id FROM console_sign_outs WHERE id = ?');
    this.#now = options.now;
    const add = database.transaction((id: string, expiresMs: number) => {
      this.#prune.run(this.#now() - SIGN_OUT_KEPT_PAST_EXPIRY_MS);
      this.#insert.run(id, expiresMs);
    });
    // the write lock first, waited for: a deferred transaction that another process's commit overtakes fails at once
    this.#add = (id, expiresMs) => add.immediate(id, expiresMs);
  }

  async add(id: string, expiresMs: number): Promise<void> {
    this.#add(id, expiresMs);
  }

  async has(id: string): Promise<boolean> {
    return this.#get.get(id) !== undefined;
  }
}
