/**
 * An agent session as the store keeps it (issue #13): its state as JSON text, which only the sessions layer reads,
 * and when it was last used. The store never interprets the state: it keeps what it was given.
 */
export interface AgentSessionRecord {
  id: string;
  /** the session's state, JSON text */
  state: string;
  /** when it was last used, ms since the epoch */
  seen_ms: number;
  /** counts the row's writes: a write that names the revision it read fails once another write came first */
  rev: number;
}

/** Agent sessions (active toolsets, loaded tools, deadlines) that any gateway instance sharing the store can serve. */
export interface AgentSessionStore {
  get(id: string): Promise<AgentSessionRecord | undefined>;
  /**
   * Writes the session if the row is still at revision `expected` (null: only if there is no row; undefined: whatever is
   * there, the last write winning). Resolves to the row's new revision, or undefined when another write came first.
   */
  write(record: Omit<AgentSessionRecord, 'rev'>, expected?: number | null): Promise<number | undefined>;
  /** false if there was none */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
  /** the sessions used at or after `since` (ms since the epoch), most recently used first, at most `limit` */
  list(since: number, limit: number): Promise<AgentSessionRecord[]>;
  /** deletes the sessions last used before `before` (ms since the epoch); returns how many */
  purge(before: number): Promise<number>;
}

/** The SQLite schema step of agent sessions (sqlite-schema.ts). */
export const AGENT_SESSIONS_TABLE = `CREATE TABLE agent_sessions (id TEXT PRIMARY KEY, state TEXT NOT NULL, seen_ms INTEGER NOT NULL);
  CREATE INDEX agent_sessions_by_seen ON agent_sessions (seen_ms);`;

/** The SQLite schema step that gives each row a revision, for compare-and-set writes (sqlite-schema.ts). */
export const AGENT_SESSION_REVISIONS = 'ALTER TABLE agent_sessions ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;';

/** Its PostgreSQL twin (postgres/postgres-migrations.ts). */
export const POSTGRES_AGENT_SESSION_REVISIONS = 'ALTER TABLE agent_sessions ADD COLUMN rev bigint NOT NULL DEFAULT 0;';

/** Its PostgreSQL twin (postgres/postgres-migrations.ts). */
export const POSTGRES_AGENT_SESSIONS_TABLE = `CREATE TABLE agent_sessions (id text PRIMARY KEY, state text NOT NULL, seen_ms bigint NOT NULL);
  CREATE INDEX agent_sessions_by_seen ON agent_sessions (seen_ms);`;
