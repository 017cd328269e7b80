import type { Database } from 'better-sqlite3';

// One entry per schema version; a database is brought forward one step at a time.
const MIGRATIONS: string[] = [
  `CREATE TABLE receipts (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     tool TEXT NOT NULL,
     ok INTEGER NOT NULL,
     started_ms INTEGER NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX receipts_by_time ON receipts (started_ms DESC, seq DESC);
   CREATE INDEX receipts_by_tool ON receipts (tool, started_ms DESC);
   CREATE INDEX receipts_by_outcome ON receipts (ok, started_ms DESC);
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
];

/** Brings the database to the newest schema, inside one transaction per step. */
export function migrate(database: Database): void {
  const current = database.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`the store's schema is version ${current}, newer than this brush-holder knows (${MIGRATIONS.length}); upgrade brush-holder`);
  }
  for (let version = current; version < MIGRATIONS.length; version += 1) {
    database.transaction(() => {
      database.exec(MIGRATIONS[version]!);
      database.pragma(`user_version = ${version + 1}`);
    })();
  }
}
