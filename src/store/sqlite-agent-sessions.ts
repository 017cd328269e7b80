import type { Database, Statement } from 'better-sqlite3';
import type { AgentSessionRecord, AgentSessionStore } from './agent-sessions.js';

/** Agent sessions in the `agent_sessions` table: every process sharing the file sees the same sessions. */
export class SqliteAgentSessionStore implements AgentSessionStore {
  readonly #select: Statement<[string], AgentSessionRecord>;
  readonly #upsert: Statement<[string, string, number], { rev: number }>;
  readonly #insert: Statement<[string, string, number], { rev: number }>;
  readonly #update: Statement<[string, number, string, number], { rev: number }>;
  readonly #delete: Statement<[string]>;
  readonly #count: Statement<[], { n: number }>;
  readonly #purge: Statement<[number]>;
  readonly #list: Statement<[number, number], AgentSessionRecord>;

  constructor(database: Database) {
    this.#select = database.prepare('SELECT id, state, seen_ms, rev FROM agent_sessions WHERE id = ?');
    this.#upsert = database.prepare('INSERT INTO agent_sessions (id, state, seen_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, seen_ms = excluded.seen_ms, rev = agent_sessions.rev + 1 RETURNING rev');
    this.#insert = database.prepare('INSERT INTO agent_sessions (id, state, seen_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING rev');
    this.#update = database.prepare('UPDATE agent_sessions SET state = ?, seen_ms = ?, rev = rev + 1 WHERE id = ? AND rev = ? RETURNING rev');
    this.#delete = database.prepare('DELETE FROM agent_sessions WHERE id = ?');
    this.#count = database.prepare('SELECT count(*) AS n FROM agent_sessions');
    this.#purge = database.prepare('DELETE FROM agent_sessions WHERE seen_ms < ?');
    this.#list = database.prepare('SELECT id, state, seen_ms, rev FROM agent_sessions WHERE seen_ms >= ? ORDER BY seen_ms DESC, id LIMIT ?');
  }

  async get(id: string): Promise<AgentSessionRecord | undefined> {
    return this.#select.get(id);
  }

  async write(record: Omit<AgentSessionRecord, 'rev'>, expected?: number | null): Promise<number | undefined> {
    const row =
      expected === undefined
        ? this.#upsert.get(record.id, record.state, record.seen_ms)
        : expected === null
          ? this.#insert.get(record.id, record.state, record.seen_ms)
          : this.#update.get(record.state, record.seen_ms, record.id, expected);
    return row?.rev;
  }

  async delete(id: string): Promise<boolean> {
    return this.#delete.run(id).changes > 0;
  }

  async count(): Promise<number> {
    return this.#count.get()!.n;
  }

  async list(since: number, limit: number): Promise<AgentSessionRecord[]> {
    return this.#list.all(since, limit);
  }

  async purge(before: number): Promise<number> {
    return this.#purge.run(before).changes;
  }
}
