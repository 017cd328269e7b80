import type { AgentSessionRecord, AgentSessionStore } from '../agent-sessions.js';
import type { Database } from './database.js';
import { postgresText } from './postgres-receipt-reads.js';

/** Agent sessions in PostgreSQL: a session opened at one instance is served by any other. */
export class PostgresAgentSessionStore implements AgentSessionStore {
  readonly #sql: Database;

  constructor(sql: Database) {
    this.#sql = sql;
  }

  async get(id: string): Promise<AgentSessionRecord | undefined> {
    // a NUL, which PostgreSQL's text refuses, is in no id: it matches nothing, as on SQLite (review Z11, Z11-3)
    if (!postgresText(id)) return undefined;
    const [row] = await this.#sql<AgentSessionRecord[]>`SELECT id, state, seen_ms, rev FROM agent_sessions WHERE id = ${id}`;
    return row;
  }

  async write(record: Omit<AgentSessionRecord, 'rev'>, expected?: number | null): Promise<number | undefined> {
    const { id, state, seen_ms: seen } = record;
    const [row] =
      expected === undefined
        ? await this.#sql<Array<{ rev: number }>>`
            INSERT INTO agent_sessions (id, state, seen_ms) VALUES (${id}, ${state}, ${seen})
            ON CONFLICT (id) DO UPDATE SET state = excluded.state, seen_ms = excluded.seen_ms, rev = agent_sessions.rev + 1 RETURNING rev`
        : expected === null
          ? await this.#sql<Array<{ rev: number }>>`INSERT INTO agent_sessions (id, state, seen_ms) VALUES (${id}, ${state}, ${seen}) ON CONFLICT (id) DO NOTHING RETURNING rev`
          : await this.#sql<Array<{ rev: number }>>`UPDATE agent_sessions SET state = ${state}, seen_ms = ${seen}, rev = rev + 1 WHERE id = ${id} AND rev = ${expected} RETURNING rev`;
    return row?.rev;
  }

  async delete(id: string): Promise<boolean> {
    if (!postgresText(id)) return false;
    return (await this.#sql`DELETE FROM agent_sessions WHERE id = ${id}`).count > 0;
  }

  async count(): Promise<number> {
    const [row] = await this.#sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM agent_sessions`;
    return row!.n;
  }

  async list(since: number, limit: number): Promise<AgentSessionRecord[]> {
    return [...(await this.#sql<AgentSessionRecord[]>`SELECT id, state, seen_ms, rev FROM agent_sessions WHERE seen_ms >= ${since} ORDER BY seen_ms DESC, id LIMIT ${limit}`)];
  }

  async purge(before: number): Promise<number> {
    return (await this.#sql`DELETE FROM agent_sessions WHERE seen_ms < ${before}`).count;
  }
}
