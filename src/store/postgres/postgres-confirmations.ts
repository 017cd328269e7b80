import type { ConfirmationBinding, ConfirmationLookup, ConfirmationRequest, ConfirmationStore, PendingConfirmation } from '../store.js';
import { confirmationRow, hashToken, refusalOf, REFUSALS, toPending, newConfirmationToken, type ConfirmationRow } from '../confirmation-rows.js';
import { hashParams } from '../canonical-params.js';
import type { Database } from './database.js';

/** Pending confirmations in PostgreSQL; using one up is one conditional UPDATE, so exactly one of many instances wins. */
export class PostgresConfirmationStore implements ConfirmationStore {
  readonly #sql: Database;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(sql: Database, options: { now: () => number; ttlMs: number }) {
    this.#sql = sql;
    this.#now = options.now;
    this.#ttlMs = options.ttlMs;
  }

  async create(request: ConfirmationRequest): Promise<PendingConfirmation> {
    const token = newConfirmationToken();
    const row = confirmationRow(request, this.#now(), this.#ttlMs);
    await this.#sql`
      INSERT INTO confirmations (token_hash, tool, params, params_hash, commit_id, created_ms, expires_ms)
      VALUES (${hashToken(token)}, ${row.tool}, ${row.params}, ${row.params_hash}, ${row.commit_id}, ${row.created_ms}, ${row.expires_ms})`;
    return toPending(token, row);
  }

  async peek(token: string): Promise<ConfirmationLookup> {
    const row = await this.#select(token);
    return refusalOf(row, this.#now()) ?? { ok: true, confirmation: toPending(token, row!) };
  }

  async consume(token: string, binding: ConfirmationBinding): Promise<ConfirmationLookup> {
    const now = this.#now();
    // READ COMMITTED: a second UPDATE of the same row waits for the first to commit, then sees used_ms set and matches nothing
    const [used] = await this.#sql<ConfirmationRow[]>`
      UPDATE confirmations SET used_ms = ${now}
      WHERE token_hash = ${hashToken(token)} AND used_ms IS NULL AND expires_ms > ${now}
        AND tool = ${binding.tool} AND params_hash = ${hashParams(binding.params)} AND commit_id = ${binding.commit}
      RETURNING tool, params, params_hash, commit_id, created_ms, expires_ms, used_ms`;
    if (used) return { ok: true, confirmation: toPending(token, used) };
    return refusalOf(await this.#select(token), this.#now()) ?? { ok: false, reason: 'mismatch', message: REFUSALS.mismatch };
  }

  async purge(): Promise<number> {
    const result = await this.#sql`DELETE FROM confirmations WHERE expires_ms <= ${this.#now()} OR used_ms IS NOT NULL`;
    return result.count;
  }

  async #select(token: string): Promise<ConfirmationRow | undefined> {
    const [row] = await this.#sql<ConfirmationRow[]>`
      SELECT tool, params, params_hash, commit_id, created_ms, expires_ms, used_ms FROM confirmations WHERE token_hash = ${hashToken(token)}`;
    return row;
  }
}
