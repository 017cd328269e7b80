import type { Database } from 'better-sqlite3';
import type { Receipt } from '../core/index.js';
import { AGENT_SESSION_REVISIONS, AGENT_SESSIONS_TABLE } from './agent-sessions.js';
import { APPROVAL_CALL_KEYS, APPROVAL_RUN_LEASES, GATEWAY_INSTANCES, GATEWAY_INSTANCES_LEFT } from './approval-rows.js';
import { canonicalReceiptText, chainAfter, GENESIS } from './receipt-chain.js';

/**
 * One step of the SQLite schema. Steps are applied in order, each in its own transaction, and recorded in
 * `PRAGMA user_version`. To add a table: append a step (never edit one that has shipped), and append the same
 * step to `POSTGRES_MIGRATIONS` (postgres/postgres-migrations.ts); the shared store suite checks both stores
 * end up with the same tables.
 */
export interface SqliteMigration {
  version: number;
  name: string;
  up: string | ((database: Database) => void);
}

const RECEIPT_INDEXES = `
  CREATE INDEX receipts_by_time ON receipts (started_ms DESC, seq DESC);
  CREATE INDEX receipts_by_tool ON receipts (tool, started_ms DESC);
  CREATE INDEX receipts_by_outcome ON receipts (ok, started_ms DESC);`;

/** The schema's steps, oldest first. */
export const SQLITE_MIGRATIONS: SqliteMigration[] = [
  {
    version: 1,
    name: 'receipts and confirmations',
    up: `CREATE TABLE receipts (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       id TEXT NOT NULL UNIQUE,
       tool TEXT NOT NULL,
       ok INTEGER NOT NULL,
       started_ms INTEGER NOT NULL,
       body TEXT NOT NULL
     );
     ${RECEIPT_INDEXES}
     CREATE TABLE confirmations (
       token_hash TEXT PRIMARY KEY,
       tool TEXT NOT NULL,
       params TEXT NOT NULL,
       params_hash TEXT NOT NULL,
       commit_id TEXT NOT NULL,
       created_ms INTEGER NOT NULL,
       expires_ms INTEGER NOT NULL,
       used_ms INTEGER
     );
     CREATE INDEX confirmations_by_expiry ON confirmations (expires_ms);`,
  },
  { version: 2, name: 'receipt chain, checkpoints, MCP sessions', up: chainReceipts },
  {
    version: 3,
    name: 'usage events',
    up: `CREATE TABLE usage_events (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       session TEXT NOT NULL,
       kind TEXT NOT NULL,
       at_ms INTEGER NOT NULL,
       body TEXT NOT NULL
     );
     CREATE INDEX usage_events_by_time ON usage_events (at_ms, seq);`,
  },
  // AUTOINCREMENT: a pruned seq is never given again, so "after N" stays meaningful
  { version: 4, name: 'event log', up: 'CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, at_ms INTEGER NOT NULL, data TEXT NOT NULL);' },
  { version: 5, name: 'agent sessions', up: AGENT_SESSIONS_TABLE },
  // confirmations become approval requests whose rule lets the caller approve its own (a pending one at the upgrade is dropped)
  {
    version: 6,
    name: 'approval requests, rejected calls, receipts by caller',
    up: `CREATE TABLE approvals (
       id TEXT PRIMARY KEY,
       status TEXT NOT NULL,
       caller TEXT NOT NULL,
       session TEXT,
       tool TEXT NOT NULL,
       method TEXT NOT NULL,
       executor TEXT NOT NULL,
       params TEXT NOT NULL,
       params_hash TEXT NOT NULL,
       commit_id TEXT NOT NULL,
       rule TEXT NOT NULL,
       timeout_ms INTEGER,
       token_hash TEXT UNIQUE,
       created_ms INTEGER NOT NULL,
       expires_ms INTEGER NOT NULL,
       decided_ms INTEGER,
       decided_by TEXT,
       decision_reason TEXT,
       decided_via TEXT,
       receipt_id TEXT
     );
     CREATE INDEX approvals_by_time ON approvals (created_ms DESC);
     CREATE INDEX approvals_by_status ON approvals (status, created_ms DESC);
     CREATE INDEX approvals_by_caller ON approvals (caller, created_ms DESC);
     CREATE INDEX approvals_pending_by_expiry ON approvals (expires_ms) WHERE status = 'pending';
     CREATE TABLE rejected_calls (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       id TEXT NOT NULL UNIQUE,
       at_ms INTEGER NOT NULL,
       caller TEXT,
       session TEXT,
       tool TEXT NOT NULL,
       code TEXT NOT NULL,
       reason TEXT NOT NULL,
       params TEXT NOT NULL
     );
     CREATE INDEX rejected_calls_by_time ON rejected_calls (at_ms DESC, seq DESC);
     CREATE INDEX rejected_calls_by_caller ON rejected_calls (caller, at_ms DESC);
     ALTER TABLE receipts ADD COLUMN caller TEXT;
     ALTER TABLE receipts ADD COLUMN session TEXT;
     UPDATE receipts SET caller = json_extract(body, '$.caller'), session = json_extract(body, '$.session');
     CREATE INDEX receipts_by_caller ON receipts (caller, started_ms DESC);
     DROP TABLE confirmations;`,
  },
  // one value per deployment that every instance reads (the console's cookie-signing key), made by the first to ask
  { version: 7, name: 'deployment secrets', up: 'CREATE TABLE deployment_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_ms INTEGER NOT NULL);' },
  // a session's row is written only over the revision its writer read: two instances changing one session merge, not overwrite
  { version: 8, name: 'agent session revisions', up: AGENT_SESSION_REVISIONS },
  // a console cookie signed out at one instance is refused at every other; a row goes once its cookie has expired
  {
    version: 9,
    name: 'console sign-outs',
    up: `CREATE TABLE console_sign_outs (id TEXT PRIMARY KEY, expires_ms INTEGER NOT NULL);
     CREATE INDEX console_sign_outs_by_expiry ON console_sign_outs (expires_ms);`,
  },
  // a listing picks its page from an index that holds every column it filters and orders by: a row's params come
  // before its rule and created_ms, so judging a row from the table walked the whole of its params (review J F1)
  {
    version: 10,
    name: 'approval listings from covering indexes',
    up: `DROP INDEX approvals_by_time;
     DROP INDEX approvals_by_status;
     DROP INDEX approvals_by_caller;
     CREATE INDEX approvals_by_time ON approvals (created_ms DESC, id DESC, status, caller, tool, rule);
     CREATE INDEX approvals_by_status ON approvals (status, created_ms DESC, id DESC, caller, tool, rule);
     CREATE INDEX approvals_by_caller ON approvals (caller, created_ms DESC, id DESC, status, tool, rule);`,
  },
  // PostgreSQL's step 11 (receipts and events appended by one function call each); SQLite has one writer: nothing to change
  { version: 11, name: 'appends in one statement', up: 'SELECT 1' },
  { version: 12, name: 'approval run leases', up: APPROVAL_RUN_LEASES },
  // PostgreSQL's step 13 (no privilege for PUBLIC on the secrets); a SQLite file has no roles: its mode guards it
  { version: 13, name: 'deployment secrets for the gateway alone', up: 'SELECT 1' },
  // PostgreSQL's step 14 (a byte-wise index for id prefixes); SQLite's index on id is byte-wise already
  { version: 14, name: 'receipts by id prefix', up: 'SELECT 1' },
  // the instances serving on the store now: whether any can still run an approved request's call (review userZ6 F10)
  { version: 15, name: 'live instances', up: GATEWAY_INSTANCES },
  // a stopped instance's row is marked, not deleted: an instance not seen is not taken for gone (review Z12, Z12-8)
  { version: 16, name: 'live instances that left', up: GATEWAY_INSTANCES_LEFT },
  // one pending request per call: the same call repeated while it waits gets that request back (review userZ9, U9-8)
  { version: 17, name: 'one pending request per call', up: APPROVAL_CALL_KEYS },
  // a session opened past a principal's bound trims that principal's oldest: read by principal, not every row (notes 56-57)
  { version: 18, name: 'MCP sessions by principal', up: "CREATE INDEX IF NOT EXISTS mcp_sessions_by_principal ON mcp_sessions (json_extract(options, '$.principal'), seen_ms)" },
  // each (event, webhook target) is POSTed by the one process whose claim is inserted first: N instances paged a person N times (U11-12);
  // IF NOT EXISTS: a store set back by hand past it (its table left in place) opens, as step 18 does
  { version: 19, name: 'notification claims', up: 'CREATE TABLE IF NOT EXISTS notification_claims (event_seq INTEGER NOT NULL, target TEXT NOT NULL, instance TEXT NOT NULL, claimed_ms INTEGER NOT NULL, PRIMARY KEY (event_seq, target));' },
];

/** Version 2: every receipt becomes a link (`seq`, `prev_hash`, `hash`); those stored before are linked in the order they were stored. */
function chainReceipts(database: Database): void {
  database.exec(`CREATE TABLE receipts_chained (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     tool TEXT NOT NULL,
     ok INTEGER NOT NULL,
     started_ms INTEGER NOT NULL,
     body TEXT NOT NULL,
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL
   )`);
  const page = database.prepare<[number], { seq: number; id: string; tool: string; ok: number; started_ms: number; body: string }>(
    'SELECT seq, id, tool, ok, started_ms, body FROM receipts WHERE seq > ? ORDER BY seq LIMIT 1000',
  );
  const insert = database.prepare('INSERT INTO receipts_chained (seq, id, tool, ok, started_ms, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let head = GENESIS;
  for (let after = 0, rows = page.all(after); rows.length > 0; after = rows.at(-1)!.seq, rows = page.all(after)) {
    const texts = rows.map((row) => canonicalReceiptText(JSON.parse(row.body) as Receipt));
    const linked = chainAfter(head, texts);
    linked.rows.forEach((link, index) => {
      const row = rows[index]!;
      insert.run(link.seq, row.id, row.tool, row.ok, row.started_ms, link.body, link.prev_hash, link.hash);
    });
    head = linked.head;
  }
  database.exec(`DROP TABLE receipts;
    ALTER TABLE receipts_chained RENAME TO receipts;
    ${RECEIPT_INDEXES}
    CREATE TABLE receipt_chain (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
    CREATE TABLE receipt_checkpoints (seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, pruned_ms INTEGER NOT NULL, deleted INTEGER NOT NULL);
    CREATE TABLE mcp_sessions (id TEXT PRIMARY KEY, initialize TEXT NOT NULL, options TEXT NOT NULL, created_ms INTEGER NOT NULL, seen_ms INTEGER NOT NULL);
    CREATE INDEX mcp_sessions_by_seen ON mcp_sessions (seen_ms);`);
  database.prepare('INSERT INTO receipt_chain (id, seq, hash) VALUES (1, ?, ?)').run(head.seq, head.hash);
}

/**
 * Brings the database to the newest schema, one transaction per step; a second process opening the file at once waits,
 * then finds it done. Returns the steps this process applied.
 */
export function migrate(database: Database): Array<{ version: number; name: string }> {
  const newest = SQLITE_MIGRATIONS.length;
  const applied: Array<{ version: number; name: string }> = [];
  if (database.pragma('user_version', { simple: true }) === newest) return applied;
  for (const migration of SQLITE_MIGRATIONS) {
    database.transaction(() => {
      // read under the write lock, so two processes never apply the same step
      const current = database.pragma('user_version', { simple: true }) as number;
      if (current > newest) throw new Error(`the store's schema is version ${current}, newer than this brush-holder knows (${newest}); upgrade brush-holder`);
      if (current >= migration.version) return;
      if (typeof migration.up === 'string') database.exec(migration.up);
      else migration.up(database);
      database.pragma(`user_version = ${migration.version}`);
      applied.push({ version: migration.version, name: migration.name });
    }).immediate();
  }
  return applied;
}
