import { principalOf, toRecord, type McpSessionRow } from '../sqlite-mcp-sessions.js';
import type { McpSessionCreate, McpSessionRecord, McpSessionStore } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/**
 * The principal's rows but the new one ($1), most recently seen first: those past `keep - 1` ($2) go. The principal
 * is `= $3`, or `IS NULL` for sessions opened without credentials: `IS NOT DISTINCT FROM` is no operator an index
 * answers, so every session of every principal was read at each one opened (notes 56-57); both forms are answered by
 * `mcp_sessions_by_principal` (schema step 18), whose expression this is, written alike.
 */
export function postgresMcpSessionTrim(principal: string | null): string {
  return `DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE (options::json ->> 'principal') ${principal === null ? 'IS NULL' : '= $3'}
    AND id <> $1 ORDER BY seen_ms DESC, created_ms DESC, id OFFSET $2)`;
}

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
      const principal = principalOf(record);
      const offset = Math.max(0, record.keep - 1);
      await transaction.unsafe(postgresMcpSessionTrim(principal), principal === null ? [record.id, offset] : [record.id, offset, principal]);
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
