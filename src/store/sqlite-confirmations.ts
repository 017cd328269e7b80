import type { Database, Statement } from 'better-sqlite3';
import { hashParams } from './canonical-params.js';
import { confirmationRow, hashToken, newConfirmationToken, refusalOf, REFUSALS, toPending, type ConfirmationRow } from './confirmation-rows.js';
import type { ConfirmationBinding, ConfirmationLookup, ConfirmationRequest, ConfirmationStore, PendingConfirmation } from './store.js';

/** Pending confirmations in the `confirmations` table; using one up is a single conditional UPDATE. */
export class SqliteConfirmationStore implements ConfirmationStore {
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #insert: Statement;
  readonly #select: Statement<[string], ConfirmationRow>;
  readonly #consume: Statement<[number, string, number, string, string, string], ConfirmationRow>;
  readonly #purge: Statement<[number]>;

  constructor(database: Database, options: { now: () => number; ttlMs: number }) {
    this.#now = options.now;
    this.#ttlMs = options.ttlMs;
    this.#insert = database.prepare(
      'INSERT INTO confirmations (token_hash, tool, params, params_hash, commit_id, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#select = database.prepare('SELECT * FROM confirmations WHERE token_hash = ?');
    this.#consume = database.prepare(
      `UPDATE confirmations SET used_ms = ?
       WHERE token_hash = ? AND used_ms IS NULL AND expires_ms > ? AND tool = ? AND params_hash = ? AND commit_id = ?
       RETURNING *`,
    );
    this.#purge = database.prepare('DELETE FROM confirmations WHERE expires_ms <= ? OR used_ms IS NOT NULL');
  }

  async create(request: ConfirmationRequest): Promise<PendingConfirmation> {
    const token = newConfirmationToken();
    const row = confirmationRow(request, this.#now(), this.#ttlMs);
    this.#insert.run(hashToken(token), row.tool, row.params, row.params_hash, row.commit_id, row.created_ms, row.expires_ms);
    return toPending(token, row);
  }

  async peek(token: string): Promise<ConfirmationLookup> {
    const row = this.#select.get(hashToken(token));
    return refusalOf(row, this.#now()) ?? { ok: true, confirmation: toPending(token, row!) };
  }

  async consume(token: string, binding: ConfirmationBinding): Promise<ConfirmationLookup> {
    const now = this.#now();
    const used = this.#consume.get(now, hashToken(token), now, binding.tool, hashParams(binding.params), binding.commit);
    if (used) return { ok: true, confirmation: toPending(token, used) };
    return refusalOf(this.#select.get(hashToken(token)), this.#now()) ?? { ok: false, reason: 'mismatch', message: REFUSALS.mismatch };
  }

  async purge(): Promise<number> {
    return this.#purge.run(this.#now()).changes;
  }
}
