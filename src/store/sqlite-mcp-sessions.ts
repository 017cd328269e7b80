import type { Database, Statement } from 'better-sqlite3';
import type { McpSessionRecord, McpSessionStore } from './store.js';

interface Row {
  id: string;
  initialize: string;
  created_ms: number;
}

/** MCP sessions in the `mcp_sessions` table. */
export class SqliteMcpSessionStore implements McpSessionStore {
  readonly #now: () => number;
  readonly #insert: Statement<[string, string, number, number]>;
  readonly #select: Statement<[string], Row>;
  readonly #delete: Statement<[string]>;
  readonly #touch: Statement<[number, string]>;
  readonly #purge: Statement<[number]>;

  constructor(database: Database, options: { now: () => number }) {
    this.#now = options.now;
    this.#insert = database.prepare('INSERT INTO mcp_sessions (id, initialize, created_ms, seen_ms) VALUES (?, ?, ?, ?)');
    this.#select = database.prepare('SELECT id, initialize, created_ms FROM mcp_sessions WHERE id = ?');
    this.#delete = database.prepare('DELETE FROM mcp_sessions WHERE id = ?');
    this.#touch = database.prepare('UPDATE mcp_sessions SET seen_ms = ? WHERE id = ?');
    this.#purge = database.prepare('DELETE FROM mcp_sessions WHERE seen_ms < ?');
  }

  async create(record: { id: string; initialize: Record<string, unknown> }): Promise<void> {
    const now = this.#now();
    this.#insert.run(record.id, JSON.stringify(record.initialize), now, now);
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    const row = this.#select.get(id);
    return row && { id: row.id, initialize: JSON.parse(row.initialize) as Record<string, unknown>, created_at: new Date(row.created_ms).toISOString() };
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
