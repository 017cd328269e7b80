import type { McpSessionRecord, McpSessionStore } from '../store.js';
import type { Database } from './database.js';

/** MCP sessions in PostgreSQL: any instance can serve a session another one opened. */
export class PostgresMcpSessionStore implements McpSessionStore {
  readonly #sql: Database;
  readonly #now: () => number;

  constructor(sql: Database, options: { now: () => number }) {
    this.#sql = sql;
    this.#now = options.now;
  }

  async create(record: { id: string; initialize: Record<string, unknown> }): Promise<void> {
    const now = this.#now();
    await this.#sql`INSERT INTO mcp_sessions (id, initialize, created_ms, seen_ms) VALUES (${record.id}, ${JSON.stringify(record.initialize)}, ${now}, ${now})`;
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    const [row] = await this.#sql<Array<{ id: string; initialize: string; created_ms: number }>>`SELECT id, initialize, created_ms FROM mcp_sessions WHERE id = ${id}`;
    return row && { id: row.id, initialize: JSON.parse(row.initialize) as Record<string, unknown>, created_at: new Date(row.created_ms).toISOString() };
  }

  async delete(id: string): Promise<void> {
    await this.#sql`DELETE FROM mcp_sessions WHERE id = ${id}`;
  }

  async touch(id: string): Promise<void> {
    await this.#sql`UPDATE mcp_sessions SET seen_ms = ${this.#now()} WHERE id = ${id}`;
  }

  async purge(idleMs: number): Promise<number> {
    return (await this.#sql`DELETE FROM mcp_sessions WHERE seen_ms < ${this.#now() - idleMs}`).count;
  }
}
