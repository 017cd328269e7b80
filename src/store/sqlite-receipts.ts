import type { Database, Statement } from 'better-sqlite3';
import type { Receipt } from '../core/index.js';
import type { ReceiptQuery, ReceiptStore } from './store.js';

const DEFAULT_PAGE = 50;
// a bound on memory per call: the HTTP API's largest page (1,000), plus the one receipt it asks for to see if a page follows
const LARGEST_PAGE = 1001;

function sinceMs(since: string | Date): number {
  const ms = (since instanceof Date ? since : new Date(since)).getTime();
  if (Number.isNaN(ms)) throw new TypeError(`'since' must be an ISO date or time, got '${String(since)}'`);
  return ms;
}

/** Receipts in the `receipts` table: indexed columns to filter on, the whole receipt as JSON. */
export class SqliteReceiptStore implements ReceiptStore {
  readonly #database: Database;
  readonly #insert: Statement;
  readonly #byId: Statement<[string], { body: string }>;
  /** one prepared statement per combination of filters */
  readonly #listings = new Map<string, Statement<Array<string | number>, { body: string }>>();

  constructor(database: Database) {
    this.#database = database;
    this.#insert = database.prepare('INSERT INTO receipts (id, tool, ok, started_ms, body) VALUES (?, ?, ?, ?, ?)');
    this.#byId = database.prepare('SELECT body FROM receipts WHERE id = ?');
  }

  async save(receipt: Receipt): Promise<void> {
    const started = Date.parse(receipt.started_at);
    if (Number.isNaN(started)) throw new TypeError(`receipt ${receipt.id} has no valid started_at`);
    this.#insert.run(receipt.id, receipt.tool, receipt.ok ? 1 : 0, started, JSON.stringify(receipt));
  }

  async get(id: string): Promise<Receipt | undefined> {
    const row = this.#byId.get(id);
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
  }

  async list(query: ReceiptQuery = {}): Promise<Receipt[]> {
    const where: string[] = [];
    const values: Array<string | number> = [];
    if (query.status) {
      where.push('ok = ?');
      values.push(query.status === 'ok' ? 1 : 0);
    }
    if (query.tool !== undefined) {
      where.push('tool = ?');
      values.push(query.tool);
    }
    if (query.since !== undefined) {
      where.push('started_ms >= ?');
      values.push(sinceMs(query.since));
    }
    const limit = Math.min(LARGEST_PAGE, Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE)));
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const sql = `SELECT body FROM receipts ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`;
    let statement = this.#listings.get(sql);
    if (!statement) {
      statement = this.#database.prepare<Array<string | number>, { body: string }>(sql);
      this.#listings.set(sql, statement);
    }
    const rows = statement.all(...values, limit, offset);
    return rows.map((row) => JSON.parse(row.body) as Receipt);
  }
}
