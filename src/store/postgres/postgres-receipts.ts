import type { Receipt } from '../../core/index.js';
import { BatchWriter, type BatchOutcome } from '../batch-writer.js';
import { canonicalReceiptText, ChainVerifier, GENESIS, type ChainRow } from '../receipt-chain.js';
import { duplicateReceipt, fitInBytes, pageOf, searchRowsOf, sinceMs, startedMs, type PendingReceipt } from '../receipt-rows.js';
import { PRUNE_BATCH, prunablePrefix } from '../retention.js';
import type { ChainLink, ChainReport, PruneResult, ReceiptPage, ReceiptQuery, ReceiptStore, RetentionPolicy } from '../store.js';
import type { Database } from './database.js';
import { PostgresTable } from './postgres-table.js';
import { LOCKS } from './postgres-migrations.js';

const VERIFY_PAGE = 10_000;

/**
 * Receipts in PostgreSQL, one hash chain for every instance: each batch of receipts is linked under one
 * `pg_advisory_xact_lock`, taken and let go within one statement, so instances take turns at the head (see the README
 * for why one chain, not one per instance).
 */
export class PostgresReceiptStore extends PostgresTable implements ReceiptStore {
  readonly #writer: BatchWriter<PendingReceipt>;

  constructor(sql: Database, options: { now: () => number }) {
    super(sql, options);
    this.#writer = new BatchWriter((batch) => this.#append(batch));
  }

  async save(receipt: Receipt): Promise<void> {
    const started = startedMs(receipt);
    await this.#writer.append({ receipt, started, text: canonicalReceiptText(receipt) });
  }

  /** resolves when every receipt handed to `save` so far is stored or refused */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * One statement: `hldp_append_receipts` (migration 11) takes the chain lock, reads the head, links and inserts the
   * batch and moves the head, and the statement's commit lets the lock go — all on the server, within the one round
   * trip. A batch linked here between round trips held the lock across them (and across this process's event loop):
   * an instance stopped or stalled mid-batch held every other instance's receipts (review L, L7).
   */
  async #append(all: PendingReceipt[]): Promise<BatchOutcome> {
    // PostgreSQL's text holds no U+0000, and one in a column refused the whole statement: every other caller's receipt
    // of the batch with it (review O, O8). Such a receipt is refused alone (its body is JSON: U+0000 is escaped there)
    const unstorable = all.map(({ receipt }) => nulColumn(receipt));
    const batch = all.filter((_, index) => unstorable[index] === undefined);
    const outcome = batch.length === 0 ? [] : await this.#appendStorable(batch);
    let next = 0;
    return all.map(({ receipt }, index) => {
      const column = unstorable[index];
      return column === undefined ? outcome[next++] : new Error(`receipt ${JSON.stringify(receipt.id)} was not stored: its ${column} holds U+0000, which PostgreSQL's text cannot`);
    });
  }

  async #appendStorable(batch: PendingReceipt[]): Promise<BatchOutcome> {
    // each column as one array parameter (sql.array: a plain array's type is guessed from its first element)
    const column = (pick: (item: PendingReceipt) => string | number | boolean | null) => this.sql.array(batch.map(pick) as never[]);
    const refused = await this.sql<Array<{ refused: number }>>`
      SELECT refused FROM hldp_append_receipts(
        ${column(({ receipt }) => receipt.id)}::text[], ${column(({ receipt }) => receipt.tool)}::text[], ${column(({ receipt }) => receipt.ok)}::boolean[],
        ${column(({ started }) => started)}::bigint[], ${column(({ text }) => text)}::text[],
        ${column(({ receipt }) => receipt.caller ?? null)}::text[], ${column(({ receipt }) => receipt.session ?? null)}::text[]) AS refused`;
    const duplicates = new Set(refused.map((row) => row.refused - 1));
    return batch.map(({ receipt }, index) => (duplicates.has(index) ? duplicateReceipt(receipt.id) : undefined));
  }

  async get(id: string): Promise<Receipt | undefined> {
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
  }

  async getText(id: string, options: { caller?: string } = {}): Promise<string | undefined> {
    const caller = options.caller ?? null;
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id} AND (${caller}::text IS NULL OR caller = ${caller})`;
    return row?.body;
  }

  /** the filters of a query other than its text, as SQL conditions each starting with AND */
  #filtersOf(query: ReceiptQuery) {
    const sql = this.sql;
    const since = query.since === undefined ? undefined : sinceMs(query.since);
    return sql`
        ${query.status ? sql`AND ok = ${query.status === 'ok'}` : sql``}
        ${query.tool !== undefined ? sql`AND tool = ${query.tool}` : sql``}
        ${query.caller !== undefined ? sql`AND caller = ${query.caller}` : sql``}
        ${query.session !== undefined ? sql`AND session = ${query.session}` : sql``}
        ${since !== undefined ? sql`AND started_ms >= ${since}` : sql``}
        ${query.until !== undefined ? sql`AND started_ms <= ${sinceMs(query.until)}` : sql``}
        ${query.code !== undefined ? sql`AND (body::json->>'code') = ${query.code}` : sql``}`;
  }

  /**
   * One snapshot (REPEATABLE READ): the sizes of the page's rows first (octet_length of a stored text reads its
   * length, not the text), then the text of only the rows that fit in `maxBytes`.
   */
  async page(query: ReceiptQuery, maxBytes: number): Promise<ReceiptPage> {
    const { limit, offset } = pageOf(query);
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
      const rows = await sql<Array<{ seq: string; bytes: number }>>`
        SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${this.#filtersOf(query)}
        ORDER BY started_ms DESC, seq DESC LIMIT ${limit + 1} OFFSET ${offset}`;
      const { taken, more, endedEarly } = fitInBytes(rows.map((row) => Number(row.bytes)), limit, maxBytes);
      const seqs = rows.slice(0, taken).map((row) => row.seq);
      const bodies = seqs.length === 0 ? [] : await sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ANY(${seqs}::bigint[]) ORDER BY started_ms DESC, seq DESC`;
      return { receipts: bodies.map((row) => JSON.parse(row.body) as Receipt), more, endedEarly };
    });
  }

  async list(query: ReceiptQuery = {}): Promise<Receipt[]> {
    const sql = this.sql;
    const { limit, offset } = pageOf(query);
    const searchRows = searchRowsOf(query);
    const search = query.text ? sql`(strpos(lower(coalesce(body::json->>'output', '')), lower(${query.text})) > 0 OR strpos(lower(coalesce(body::json->>'error', '')), lower(${query.text})) > 0)` : undefined;
    const filtered = sql`
      SELECT body, started_ms, seq FROM receipts
      WHERE true ${this.#filtersOf(query)}
        ${search && searchRows === undefined ? sql`AND ${search}` : sql``}
      ORDER BY started_ms DESC, seq DESC`;
    // a bounded search reads the newest rows that meet the other filters (at most searchRows, and searchBytes of
    // stored text: their sizes are read first, not their text), then looks for the text in those alone, in one snapshot
    // the code, read from the body as the text is, is looked for in those rows alone too (review J F3)
    const rows = (search || query.code !== undefined) && searchRows !== undefined
      ? await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
          const candidates = await sql<Array<{ seq: string; bytes: number }>>`
            SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${this.#filtersOf({ ...query, code: undefined })} ORDER BY started_ms DESC, seq DESC LIMIT ${searchRows}`;
          const { taken } = fitInBytes(candidates.map((row) => Number(row.bytes)), candidates.length, query.searchBytes ?? Number.POSITIVE_INFINITY);
          const seqs = candidates.slice(0, taken).map((row) => row.seq);
          return sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ANY(${seqs}::bigint[])
            ${query.code !== undefined ? sql`AND (body::json->>'code') = ${query.code}` : sql``} ${search ? sql`AND ${search}` : sql``}
            ORDER BY started_ms DESC, seq DESC LIMIT ${limit} OFFSET ${offset}`;
        })
      : await sql<Array<{ body: string }>>`${filtered} LIMIT ${limit} OFFSET ${offset}`;
    return rows.map((row) => JSON.parse(row.body) as Receipt);
  }

  /** Walks the chain inside one REPEATABLE READ transaction (one snapshot while calls go on), through a cursor. */
  async verify(): Promise<ChainReport> {
    await this.#writer.flush();
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
      const [[checkpointRow], [headRow]] = await Promise.all([
        sql<ChainLink[]>`SELECT seq, hash FROM receipt_checkpoints ORDER BY seq DESC LIMIT 1`,
        sql<ChainLink[]>`SELECT seq, hash FROM receipt_chain WHERE id = 1`,
      ]);
      const checkpoint = checkpointRow ?? GENESIS;
      const verifier = new ChainVerifier(checkpoint);
      const cursor = sql<ChainRow[]>`SELECT seq, prev_hash, hash, body FROM receipts WHERE seq > ${checkpoint.seq} ORDER BY seq`.cursor(VERIFY_PAGE);
      pages: for await (const rows of cursor) {
        for (const row of rows) if (!verifier.add(row)) break pages;
      }
      return verifier.report(headRow ?? GENESIS);
    });
  }

  /**
   * Deletes the oldest receipts the policy lets go, `PRUNE_BATCH` per transaction; each batch records its last link as
   * the checkpoint in the same transaction. One instance prunes at a time (`pg_try_advisory_xact_lock`); the others skip.
   */
  async prune(policy: RetentionPolicy, options: { signal?: AbortSignal } = {}): Promise<PruneResult> {
    let total = 0;
    for (;;) {
      const pass = await this.sql.begin(async (sql) => {
        const [[lock], [checkpointRow], [head]] = await Promise.all([
          sql<Array<{ granted: boolean }>>`SELECT pg_try_advisory_xact_lock(${LOCKS.prune.toString()}::bigint) AS granted`,
          sql<ChainLink[]>`SELECT seq, hash FROM receipt_checkpoints ORDER BY seq DESC LIMIT 1`,
          sql<ChainLink[]>`SELECT seq, hash FROM receipt_chain WHERE id = 1`,
        ]);
        const checkpoint = checkpointRow ?? GENESIS;
        if (!lock?.granted) return { deleted: 0, checkpoint, busy: true };
        const oldest = await sql<Array<{ seq: number; started_ms: number; hash: string }>>`
          SELECT seq, started_ms, hash FROM receipts WHERE seq > ${checkpoint.seq} ORDER BY seq LIMIT ${PRUNE_BATCH}`;
        const count = prunablePrefix(oldest, (head ?? GENESIS).seq, policy, this.now());
        if (count === 0) return { deleted: 0, checkpoint, busy: false };
        const last = oldest[count - 1]!;
        const [deleted] = await Promise.all([
          sql`DELETE FROM receipts WHERE seq <= ${last.seq}`,
          sql`INSERT INTO receipt_checkpoints (seq, hash, pruned_ms, deleted) VALUES (${last.seq}, ${last.hash}, ${this.now()}, ${count})`,
        ]);
        return { deleted: deleted.count, checkpoint: { seq: last.seq, hash: last.hash }, busy: false };
      });
      total += pass.deleted;
      if (pass.busy || pass.deleted < PRUNE_BATCH || options.signal?.aborted) return { deleted: total, checkpoint: pass.checkpoint };
    }
  }
}

/** The column of `receipt` stored as text beside its body that holds U+0000, or undefined. */
function nulColumn(receipt: Receipt): string | undefined {
  const columns = { id: receipt.id, tool: receipt.tool, caller: receipt.caller, session: receipt.session };
  return Object.entries(columns).find(([, value]) => typeof value === 'string' && value.includes('\u0000'))?.[0];
}
