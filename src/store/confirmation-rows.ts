import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson, hashParams } from './canonical-params.js';
import type { ConfirmationLookup, ConfirmationRequest, PendingConfirmation } from './store.js';

/** How long a confirmation waits by default. */
export const DEFAULT_CONFIRMATION_TTL_MS = 10 * 60 * 1000;

/** A stored confirmation, as both stores keep it. */
export interface ConfirmationRow {
  tool: string;
  params: string;
  params_hash: string;
  commit_id: string;
  created_ms: number;
  expires_ms: number;
  used_ms: number | null;
}

/** A fresh single-use token. */
export const newConfirmationToken = (): string => `hldp_confirm_${randomBytes(24).toString('base64url')}`;

// Only a hash of each token is stored: reading the database does not let anyone confirm a call.
/** The stored form of a token. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The row a new confirmation is stored as. */
export function confirmationRow(request: ConfirmationRequest, now: number, defaultTtlMs: number): ConfirmationRow {
  return {
    tool: request.tool,
    params: canonicalJson(request.params),
    params_hash: hashParams(request.params),
    commit_id: request.commit,
    created_ms: now,
    expires_ms: now + (request.ttlMs ?? defaultTtlMs),
    used_ms: null,
  };
}

/** A row as the pending call it stands for. */
export function toPending(token: string, row: ConfirmationRow): PendingConfirmation {
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

/** What to tell whoever holds a token that cannot be used. */
export const REFUSALS = {
  unknown: 'unknown confirmation token; run the call again to get a new one',
  used: 'this confirmation token was already used; run the call again to get a new one',
  expired: 'this confirmation token has expired; run the call again to get a new one',
  mismatch: 'this confirmation token was issued for another tool, other params or another index commit; run the call again to confirm exactly what will run',
} as const;

/** Why a row cannot be used now, or undefined if it can. */
export function refusalOf(row: ConfirmationRow | undefined, now: number): Extract<ConfirmationLookup, { ok: false }> | undefined {
  if (!row) return { ok: false, reason: 'unknown', message: REFUSALS.unknown };
  if (row.used_ms !== null) return { ok: false, reason: 'used', message: REFUSALS.used };
  if (row.expires_ms <= now) return { ok: false, reason: 'expired', message: REFUSALS.expired };
  return undefined;
}
