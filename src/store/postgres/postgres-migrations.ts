import type { Sql } from 'postgres';
import { POSTGRES_AGENT_SESSION_REVISIONS, POSTGRES_AGENT_SESSIONS_TABLE } from '../agent-sessions.js';
import { APPROVAL_CALL_KEYS, APPROVAL_RUN_LEASES, GATEWAY_INSTANCES, GATEWAY_INSTANCES_LEFT } from '../approval-rows.js';
import { GENESIS } from '../receipt-chain.js';

/**
 * One step of the PostgreSQL schema, the twin of the SQLite step with the same version and name. Steps run on start,
 * all pending ones in one transaction under `pg_advisory_xact_lock`, so that instances starting together apply each
 * step once. To add a table: append a step here (never edit one that has shipped) and the same step to
 * `SQLITE_MIGRATIONS` (sqlite-schema.ts); the shared store suite checks both lists and both stores' tables agree.
 */
export interface PostgresMigration {
  version: number;
  name: string;
  up: string;
}

/** Advisory lock keys of this store (64-bit; 'hldp' in the high bytes). */
export const LOCKS = {
  migrations: 0x686c_6470_0001n,
  chain: 0x686c_6470_0002n,
  prune: 0x686c_6470_0003n,
  events: 0x686c_6470_0004n,
} as const;

/**
 * Links a batch of receipts after the chain's head and stores them, under the chain lock, in the statement's own
 * transaction; returns the batch positions (1-based) refused as duplicates (an id stored before, or earlier in the
 * batch). Each link's hash is `sha256(prev_hash ‖ body)` of the body's UTF-8, as `linkHash` computes it. A VOLATILE
 * function's every query takes a new snapshot (READ COMMITTED): the head is read after the lock is granted.
 */
const APPEND_RECEIPTS_FUNCTION = `CREATE FUNCTION hldp_append_receipts(ids text[], tools text[], oks boolean[], started bigint[], bodies text[], callers text[], sessions text[])
  RETURNS SETOF integer LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    head_seq bigint;
    head_hash text;
    stored text[];
    taken text[] := '{}';
    positions integer[] := '{}';
    seqs bigint[] := '{}';
    prevs text[] := '{}';
    hashes text[] := '{}';
  BEGIN
    PERFORM pg_advisory_xact_lock(${LOCKS.chain.toString()});
    SELECT seq, hash INTO head_seq, head_hash FROM receipt_chain WHERE id = 1;
    SELECT coalesce(array_agg(r.id), '{}') INTO stored FROM receipts r WHERE r.id = ANY(ids);
    FOR i IN 1 .. coalesce(array_length(ids, 1), 0) LOOP
      IF ids[i] = ANY(stored) OR ids[i] = ANY(taken) THEN
        RETURN NEXT i;
        CONTINUE;
      END IF;
      taken := taken || ids[i];
      positions := positions || i;
      head_seq := head_seq + 1;
      seqs := seqs || head_seq;
      prevs := prevs || head_hash;
      head_hash := encode(sha256(convert_to(head_hash || bodies[i], 'UTF8')), 'hex');
      hashes := hashes || head_hash;
    END LOOP;
    IF array_length(positions, 1) IS NULL THEN RETURN; END IF;
    INSERT INTO receipts (seq, id, tool, ok, started_ms, body, prev_hash, hash, caller, session)
      SELECT u.seq, ids[u.position], tools[u.position], oks[u.position], started[u.position], bodies[u.position], u.prev, u.hash, callers[u.position], sessions[u.position]
      FROM unnest(positions, seqs, prevs, hashes) AS u(position, seq, prev, hash);
    UPDATE receipt_chain SET seq = head_seq, hash = head_hash WHERE id = 1;
  END $$;`;

/**
 * Appends a batch of events under the events lock, in the statement's own transaction, their seq values taken in the
 * batch's order; returns those values (ascending is the batch's order).
 */
const APPEND_EVENTS_FUNCTION = `CREATE FUNCTION hldp_append_events(types text[], ats bigint[], datas text[])
  RETURNS SETOF bigint LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${LOCKS.events.toString()});
    RETURN QUERY INSERT INTO events (type, at_ms, data)
      SELECT u.type, u.at_ms, u.data FROM unnest(types, ats, datas) WITH ORDINALITY AS u(type, at_ms, data, position) ORDER BY u.position
      RETURNING seq;
  END $$;`;

/** The schema's steps, oldest first. */
export const POSTGRES_MIGRATIONS: PostgresMigration[] = [
  {
    version: 1,
    name: 'receipts and confirmations',
    up: `CREATE TABLE receipts (
       seq bigint PRIMARY KEY,
       id text NOT NULL UNIQUE,
       tool text NOT NULL,
       ok boolean NOT NULL,
       started_ms bigint NOT NULL,
       -- text, not jsonb: jsonb reorders keys, and the stored text is what the chain hashes
       body text NOT NULL
     );
     CREATE INDEX receipts_by_time ON receipts (started_ms DESC, seq DESC);
     CREATE INDEX receipts_by_tool ON receipts (tool, started_ms DESC);
     CREATE INDEX receipts_by_outcome ON receipts (ok, started_ms DESC);
     CREATE TABLE confirmations (
       token_hash text PRIMARY KEY,
       tool text NOT NULL,
       params text NOT NULL,
       params_hash text NOT NULL,
       commit_id text NOT NULL,
       created_ms bigint NOT NULL,
       expires_ms bigint NOT NULL,
       used_ms bigint
     );
     CREATE INDEX confirmations_by_expiry ON confirmations (expires_ms);`,
  },
  {
    version: 2,
    name: 'receipt chain, checkpoints, MCP sessions',
    up: `ALTER TABLE receipts ADD COLUMN prev_hash text NOT NULL, ADD COLUMN hash text NOT NULL;
     CREATE TABLE receipt_chain (id smallint PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL, hash text NOT NULL);
     INSERT INTO receipt_chain (id, seq, hash) VALUES (1, ${GENESIS.seq}, '${GENESIS.hash}');
     CREATE TABLE receipt_checkpoints (seq bigint PRIMARY KEY, hash text NOT NULL, pruned_ms bigint NOT NULL, deleted bigint NOT NULL);
     CREATE TABLE mcp_sessions (id text PRIMARY KEY, initialize text NOT NULL, options text NOT NULL, created_ms bigint NOT NULL, seen_ms bigint NOT NULL);
     CREATE INDEX mcp_sessions_by_seen ON mcp_sessions (seen_ms);`,
  },
  {
    version: 3,
    name: 'usage events',
    up: `CREATE TABLE usage_events (
       seq bigserial PRIMARY KEY,
       session text NOT NULL,
       kind text NOT NULL,
       at_ms bigint NOT NULL,
       body text NOT NULL
     );
     CREATE INDEX usage_events_by_time ON usage_events (at_ms, seq);`,
  },
  {
    version: 4,
    name: 'event log',
    // appends take their seq under the events advisory lock (postgres-events.ts), so seq order is commit order
    up: `CREATE TABLE events (seq bigserial PRIMARY KEY, type text NOT NULL, at_ms bigint NOT NULL, data text NOT NULL);`,
  },
  { version: 5, name: 'agent sessions', up: POSTGRES_AGENT_SESSIONS_TABLE },
  // confirmations become approval requests whose rule lets the caller approve its own (a pending one at the upgrade is dropped)
  {
    version: 6,
    name: 'approval requests, rejected calls, receipts by caller',
    up: `CREATE TABLE approvals (
       id text PRIMARY KEY,
       status text NOT NULL,
       caller text NOT NULL,
       session text,
       tool text NOT NULL,
       method text NOT NULL,
       executor text NOT NULL,
       params text NOT NULL,
       params_hash text NOT NULL,
       commit_id text NOT NULL,
       rule text NOT NULL,
       timeout_ms bigint,
       token_hash text UNIQUE,
       created_ms bigint NOT NULL,
       expires_ms bigint NOT NULL,
       decided_ms bigint,
       decided_by text,
       decision_reason text,
       decided_via text,
       receipt_id text
     );
     CREATE INDEX approvals_by_time ON approvals (created_ms DESC);
     CREATE INDEX approvals_by_status ON approvals (status, created_ms DESC);
     CREATE INDEX approvals_by_caller ON approvals (caller, created_ms DESC);
     CREATE INDEX approvals_pending_by_expiry ON approvals (expires_ms) WHERE status = 'pending';
     CREATE TABLE rejected_calls (
       seq bigserial PRIMARY KEY,
       id text NOT NULL UNIQUE,
       at_ms bigint NOT NULL,
       caller text,
       session text,
       tool text NOT NULL,
       code text NOT NULL,
       reason text NOT NULL,
       params text NOT NULL
     );
     CREATE INDEX rejected_calls_by_time ON rejected_calls (at_ms DESC, seq DESC);
     CREATE INDEX rejected_calls_by_caller ON rejected_calls (caller, at_ms DESC);
     ALTER TABLE receipts ADD COLUMN caller text, ADD COLUMN session text;
     UPDATE receipts SET caller = body::jsonb ->> 'caller', session = body::jsonb ->> 'session';
     CREATE INDEX receipts_by_caller ON receipts (caller, started_ms DESC);
     DROP TABLE confirmations;`,
  },
  // one value per deployment that every instance reads (the console's cookie-signing key), made by the first to ask
  { version: 7, name: 'deployment secrets', up: 'CREATE TABLE deployment_secrets (name text PRIMARY KEY, value text NOT NULL, created_ms bigint NOT NULL);' },
  { version: 8, name: 'agent session revisions', up: POSTGRES_AGENT_SESSION_REVISIONS },
  // a console cookie signed out at one instance is refused at every other; a row goes once its cookie has expired
  {
    version: 9,
    name: 'console sign-outs',
    up: `CREATE TABLE console_sign_outs (id text PRIMARY KEY, expires_ms bigint NOT NULL);
     CREATE INDEX console_sign_outs_by_expiry ON console_sign_outs (expires_ms);`,
  },
  // SQLite's step 10 (covering indexes for approval listings); PostgreSQL keeps params out of line, so a listing that
  // judges rows by rule and created_ms never reads them: nothing to change
  { version: 10, name: 'approval listings from covering indexes', up: 'SELECT 1' },
  // receipts and events are appended by one function call each, outside any transaction the client drives: the
  // advisory lock that orders the appends of every instance is taken and released (at the statement's commit) within
  // one round trip, so a stopped or stalled instance cannot hold every other instance's writes (review L, L7)
  { version: 11, name: 'appends in one statement', up: `${APPEND_RECEIPTS_FUNCTION}\n${APPEND_EVENTS_FUNCTION}` },
  // an approved call's run is leased by the process running it, and closed as interrupted by another once the lease
  // lapses with no receipt (review L, L5); requests left so before the upgrade get a lease that ends after their deadline
  { version: 12, name: 'approval run leases', up: APPROVAL_RUN_LEASES },
  // the secrets (the console's cookie key, the bus's signing key) are read by the gateway's role alone, whatever default
  // privileges the database gives PUBLIC (review S, S5); a role granted them by name can still read them
  { version: 13, name: 'deployment secrets for the gateway alone', up: 'REVOKE ALL ON TABLE deployment_secrets FROM PUBLIC' },
  // `hldp receipts <first 8 characters>` reads the ids that start so through an index: the unique index on id follows
  // the database's collation, which orders no byte-wise prefix range (review userZ6 F9)
  // IF NOT EXISTS: an operator with a large store builds it first, CONCURRENTLY, without blocking appends (review Z9, Z9-10)
  { version: 14, name: 'receipts by id prefix', up: 'CREATE INDEX IF NOT EXISTS receipts_by_id_prefix ON receipts (id text_pattern_ops)' },
  // the instances serving on the store now: whether any can still run an approved request's call (review userZ6 F10)
  { version: 15, name: 'live instances', up: GATEWAY_INSTANCES },
  // a stopped instance's row is marked, not deleted: an instance not seen is not taken for gone (review Z12, Z12-8)
  { version: 16, name: 'live instances that left', up: GATEWAY_INSTANCES_LEFT },
  // one pending request per call: the same call repeated while it waits gets that request back (review userZ9, U9-8)
  { version: 17, name: 'one pending request per call', up: APPROVAL_CALL_KEYS },
  // a session opened past a principal's bound trims that principal's oldest: read by principal, not every row (notes 56-57);
  // IF NOT EXISTS: an operator with many sessions may build it first, CONCURRENTLY, as step 14's
  { version: 18, name: 'MCP sessions by principal', up: "CREATE INDEX IF NOT EXISTS mcp_sessions_by_principal ON mcp_sessions ((options::json ->> 'principal'), seen_ms)" },
  // each (event, webhook target) is POSTed by the one instance whose claim is inserted first: N instances paged a person N times (U11-12);
  // IF NOT EXISTS: a store set back by hand past it (its table left in place) opens, as step 18 does
  { version: 19, name: 'notification claims', up: 'CREATE TABLE IF NOT EXISTS notification_claims (event_seq bigint NOT NULL, target text NOT NULL, instance text NOT NULL, claimed_ms bigint NOT NULL, PRIMARY KEY (event_seq, target));' },
];

/** Applies the pending steps in one transaction under the migrations lock; returns the versions it applied. */
export async function migratePostgres(sql: Sql<Record<string, never>>, now: () => number, migrations: PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  return sql.begin(async (transaction) => {
    await transaction`SELECT pg_advisory_xact_lock(${LOCKS.migrations.toString()}::bigint)`;
    // created under the lock: two instances never race to create it
    await transaction`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_ms bigint NOT NULL)`;
    const rows = await transaction<Array<{ version: number }>>`SELECT version FROM schema_migrations ORDER BY version`;
    const applied = new Set(rows.map((row) => row.version));
    const newest = Math.max(0, ...applied);
    if (newest > migrations.length) {
      throw new Error(`the store's schema is version ${newest}, newer than this brush-holder knows (${migrations.length}); upgrade brush-holder`);
    }
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await transaction.unsafe(migration.up);
      await transaction`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (${migration.version}, ${migration.name}, ${now()})`;
      done.push(migration.version);
    }
    return done;
  });
}
