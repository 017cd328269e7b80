import type { Database, Statement } from 'better-sqlite3';
import type { McpSessionCreate, McpSessionRecord, McpSessionStore } from './store.js';

/** An `mcp_sessions` row, in either store. */
export interface McpSessionRow {
  id: string;
  initialize: string;
  options: string;
  created_ms: number;
}

/** A row as the record it stands for. */
export function toRecord(row: McpSessionRow): McpSessionRecord {
  return {
    id: row.id,
    initialize: JSON.parse(row.initialize) as Record<string, unknown>,
    options: JSON.parse(row.options) as Record<string, unknown>,
    created_at: new Date(row.created_ms).toISOString(),
  };
}

/** A record's principal, as `options.principal` holds it (null: a session opened without credentials). */
export function principalOf(record: McpSessionCreate): string | null {
  const principal = record.options?.['principal'];
  return typeof principal === 'string' ? principal : null;
}

/**
 * The principal's rows but the new one (`id`), most recently seen first: those past `keep - 1` go. Read through
 * `mcp_sessions_by_principal` (schema step 18): its expression is the index's, written alike, or SQLite scans every
 * session of every principal at each one opened (notes 56-57).
 */
export const SQLITE_MCP_SESSION_TRIM = `DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE json_extract(options, '$.principal') IS ? AND id <> ?
  ORDER BY seen_ms DESC, rowid DESC LIMIT -1 OFFSET ?)`;

/** MCP sessions in the `mcp_sessions` table. */
export class SqliteMcpSessionStore implements McpSessionStore {
  readonly #now: () => number;
  readonly #insert: Statement<[string, string, string, number, number]>;
  readonly #select: Statement<[string], McpSessionRow>;
  readonly #delete: Statement<[string]>;
  readonly #touch: Statement<[number, string]>;
  readonly #purge: Statement<[number]>;
  readonly #create: (record: McpSessionCreate) => void;

  constructor(database: Database, options: { now: () => number }) {
    this.#now = options.now;
    this.#insert = database.prepare('INSERT INTO mcp_sessions (id, initialize, options, created_ms, seen_ms) VALUES (?, ?, ?, ?, ?)');
    this.#select = database.prepare('SELECT id, initialize, options, created_ms FROM mcp_sessions WHERE id = ?');
    this.#delete = database.prepare('DELETE FROM mcp_sessions WHERE id = ?');
    this.#touch = database.prepare('UPDATE mcp_sessions SET seen_ms = ? WHERE id = ?');
    this.#purge = database.prepare('DELETE FROM mcp_sessions WHERE seen_ms < ?');
    const trim = database.prepare<[string | null, string, number]>(SQLITE_MCP_SESSION_TRIM);
    this.#create = database.transaction((record: McpSessionCreate) => {
      const now = this.#now();
      this.#insert.run(record.id, JSON.stringify(record.initialize), JSON.stringify(record.options ?? {}), now, now);
      if (record.keep !== undefined) trim.run(principalOf(record), record.id, Math.max(0, record.keep - 1));
    });
  }

  async create(record: McpSessionCreate): Promise<void> {
    this.#create(record);
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    const row = this.#select.get(id);
    return row && toRecord(row);
  }

  async delete(id: string): Promise<void> {
    this.#delete.run(id);
  }

  async touch(id: string): Promise<void> {
    this.#touch.run(this.#now(), id);
  }

  async purge(idleMs: number): Promise<number> {
    return this.#purge.run(this.#now() - idleMs).changes;
  }
}
