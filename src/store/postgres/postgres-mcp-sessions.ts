import { principalOf, toRecord, type McpSessionRow } from '../sqlite-mcp-sessions.js';
import type { McpSessionCreate, McpSessionRecord, McpSessionStore } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/** MCP sessions in PostgreSQL: any instance can serve a session another one opened. */
export class PostgresMcpSessionStore extends PostgresTable implements McpSessionStore {
  async create(record: McpSessionCreate): Promise<void> {
    const now = this.now();
    await this.sql.begin(async (transaction) => {
      await transaction`
        INSERT INTO mcp_sessions (id, initialize, options, created_ms, seen_ms)
        VALUES (${record.id}, ${JSON.stringify(record.initialize)}, ${JSON.stringify(record.options ?? {})}, ${now}, ${now})`;
      // the principal's rows but the new one, most recently seen first: those past `keep - 1` go (review Z16-3)
      if (record.keep === undefined) return;
      await transaction`
        DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE (options::json ->> 'principal') IS NOT DISTINCT FROM ${principalOf(record)}::text
          AND id <> ${record.id} ORDER BY seen_ms DESC, created_ms DESC, id OFFSET ${Math.max(0, record.keep - 1)})`;
    });
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    const [row] = await this.sql<McpSessionRow[]>`SELECT id, initialize, options, created_ms FROM mcp_sessions WHERE id = ${id}`;
    return row && toRecord(row);
  }

  async delete(id: string): Promise<void> {
    await this.sql`DELETE FROM mcp_sessions WHERE id = ${id}`;
  }

  async touch(id: string): Promise<void> {
    await this.sql`UPDATE mcp_sessions SET seen_ms = ${this.now()} WHERE id = ${id}`;
  }

  async purge(idleMs: number): Promise<number> {
    return (await this.sql`DELETE FROM mcp_sessions WHERE seen_ms < ${this.now() - idleMs}`).count;
  }
}
