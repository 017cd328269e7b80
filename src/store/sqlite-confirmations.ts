import { createHash, randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { canonicalJson, hashParams } from './canonical-params.js';
import type { ConfirmationBinding, ConfirmationLookup, ConfirmationRequest, ConfirmationStore, PendingConfirmation } from './store.js';

/** How long a confirmation waits by default. */
export const DEFAULT_CONFIRMATION_TTL_MS = 10 * 60 * 1000;

interface Row {
  tool: string;
  params: string;
  params_hash: string;
  commit_id: string;
  created_ms: number;
  expires_ms: number;
  used_ms: number | null;
}

// Only a hash of each token is stored: reading the database does not let anyone confirm a call.
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

function toPending(token: string, row: Row): PendingConfirmation {
  return {
    token,
    tool: row.tool,
    params: JSON.parse(row.params) as Record<string, unknown>,
    params_hash: row.params_hash,
    commit: row.commit_id,
    created_at: new Date(row.created_ms).toISOString(),
    expires_at: new Date(row.expires_ms).toISOString(),
  };
}

const refusals = {
  unknown: 'unknown confirmation token; run the call again to get a new one',
  used: 'this confirmation token was already used; run the call again to get a new one',
  expired: 'this confirmation token has expired; run the call again to get a new one',
  mismatch: 'this confirmation token was issued for another tool, other params or another index commit; run the call again to confirm exactly what will run',
} as const;

/** Pending confirmations in the `confirmations` table; using one up is a single conditional UPDATE. */
export class SqliteConfirmationStore implements ConfirmationStore {
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #insert: Statement;
  readonly #select: Statement<[string], Row>;
  readonly #consume: Statement<[number, string, number, string, string, string], Row>;
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
    const token = `hldp_confirm_${randomBytes(24).toString('base64url')}`;
    const now = this.#now();
    const row: Row = {
      tool: request.tool,
      params: canonicalJson(request.params),
      params_hash: hashParams(request.params),
      commit_id: request.commit,
      created_ms: now,
      expires_ms: now + (request.ttlMs ?? this.#ttlMs),
      used_ms: null,
    };
    this.#insert.run(hashToken(token), row.tool, row.params, row.params_hash, row.commit_id, row.created_ms, row.expires_ms);
    return toPending(token, row);
  }

  async peek(token: string): Promise<ConfirmationLookup> {
    const row = this.#select.get(hashToken(token));
    const refusal = this.#refusal(row);
    return refusal ?? { ok: true, confirmation: toPending(token, row!) };
  }

  async consume(token: string, binding: ConfirmationBinding): Promise<ConfirmationLookup> {
    const now = this.#now();
    const used = this.#consume.get(now, hashToken(token), now, binding.tool, hashParams(binding.params), binding.commit);
    if (used) return { ok: true, confirmation: toPending(token, used) };
    return this.#refusal(this.#select.get(hashToken(token))) ?? { ok: false, reason: 'mismatch', message: refusals.mismatch };
  }

  async purge(): Promise<number> {
    return this.#purge.run(this.#now()).changes;
  }

  #refusal(row: Row | undefined): Extract<ConfirmationLookup, { ok: false }> | undefined {
    if (!row) return { ok: false, reason: 'unknown', message: refusals.unknown };
    if (row.used_ms !== null) return { ok: false, reason: 'used', message: refusals.used };
    if (row.expires_ms <= this.#now()) return { ok: false, reason: 'expired', message: refusals.expired };
    return undefined;
  }
}
