import type { Receipt } from '../../core/index.js';
import { BatchWriter, type BatchOutcome } from '../batch-writer.js';
import { canonicalReceiptText, chainAfter, ChainVerifier, GENESIS, type ChainRow } from '../receipt-chain.js';
import { duplicateReceipt, fitInBytes, pageOf, searchRowsOf, sinceMs, startedMs, type PendingReceipt } from '../receipt-rows.js';
import { PRUNE_BATCH, prunablePrefix } from '../retention.js';
import type { ChainLink, ChainReport, PruneResult, ReceiptPage, ReceiptQuery, ReceiptStore, RetentionPolicy } from '../store.js';
import type { Database } from './database.js';
import { PostgresTable } from './postgres-table.js';
import { LOCKS } from './postgres-migrations.js';

const VERIFY_PAGE = 10_000;

/**
 * Receipts in PostgreSQL, one hash chain for every instance: each batch of receipts is linked under one
 * `pg_advisory_xact_lock`, so instances take turns at the head (see the README for why one chain, not one per instance).
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

  async #append(batch: PendingReceipt[]): Promise<BatchOutcome> {
    const ids = batch.map(({ receipt }) => receipt.id);
    return this.sql.begin(async (sql) => {
      // sent together: the head and the duplicates are read after the lock is granted, each statement with a fresh snapshot
      const [, [head], stored] = await Promise.all([
        sql`SELECT pg_advisory_xact_lock(${LOCKS.chain.toString()}::bigint)`,
        sql<ChainLink[]>`SELECT seq, hash FROM receipt_chain WHERE id = 1`,
        sql<Array<{ id: string }>>`SELECT id FROM receipts WHERE id = ANY(${ids})`,
      ]);
      const seen = new Set(stored.map((row) => row.id));
      const outcome: BatchOutcome = batch.map(({ receipt }) => {
        const duplicate = seen.has(receipt.id);
        seen.add(receipt.id);
        return duplicate ? duplicateReceipt(receipt.id) : undefined;
      });
      const accepted = batch.filter((_item, index) => !outcome[index]);
      if (accepted.length === 0) return outcome;
      const linked = chainAfter(head ?? GENESIS, accepted.map((item) => item.text));
      const rows = linked.rows.map((row, index) => {
        const { receipt, started } = accepted[index]!;
        return { seq: row.seq, id: receipt.id, tool: receipt.tool, ok: receipt.ok, started_ms: started, body: row.body, prev_hash: row.prev_hash, hash: row.hash, caller: receipt.caller ?? null, session: receipt.session ?? null };
      });
      await Promise.all([
        sql`INSERT INTO receipts ${sql(rows, 'seq', 'id', 'tool', 'ok', 'started_ms', 'body', 'prev_hash', 'hash', 'caller', 'session')}`,
        sql`UPDATE receipt_chain SET seq = ${linked.head.seq}, hash = ${linked.head.hash} WHERE id = 1`,
      ]);
      return outcome;
    });
  }

  async get(id: string): Promise<Receipt | undefined> {
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
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
