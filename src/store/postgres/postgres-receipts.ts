import type { Receipt } from '../../core/index.js';
import { BatchWriter, type BatchOutcome } from '../batch-writer.js';
import { canonicalReceiptText, GENESIS } from '../receipt-chain.js';
import { fitInBytes, pageOf, searchRowsOf, sinceMs, startedMs, type PendingReceipt } from '../receipt-rows.js';
import { isLargeReceipt, LARGE_RECEIPT_CHARACTERS, type ReceiptWriterThread, type ThreadItem } from '../receipt-writer-thread.js';
import { PRUNE_BATCH, prunablePrefix } from '../retention.js';
import { excerptOf, rawFieldOf, summaryOfReceipt, type RawField, type ReceiptExcerpt, type ReceiptSummary, type ReceiptSummaryPage } from '../receipt-summary.js';
import type { ChainLink, ChainReport, PruneResult, ReceiptPage, ReceiptQuery, ReceiptStore, ReceiptTextPage, RetentionPolicy } from '../store.js';
import type { Database } from './database.js';
import { walkPostgresChain } from './postgres-chain-walk.js';
import { PostgresTable } from './postgres-table.js';
import { LOCKS } from './postgres-migrations.js';
import { appendPostgresReceipts } from './receipt-append.js';

/**
 * Receipts in PostgreSQL, one hash chain for every instance: each batch of receipts is linked under one
 * `pg_advisory_xact_lock`, taken and let go within one statement, so instances take turns at the head (see the README
 * for why one chain, not one per instance).
 */
export class PostgresReceiptStore extends PostgresTable implements ReceiptStore {
  readonly #writer: BatchWriter<ThreadItem>;
  readonly #thread: ReceiptWriterThread | undefined;

  /** `thread`: where large receipts are written and read, on a connection of its own, off this thread's event loop */
  constructor(sql: Database, options: { now: () => number; thread?: ReceiptWriterThread }) {
    super(sql, options);
    this.#thread = options.thread;
    this.#writer = new BatchWriter((batch) => this.#write(batch));
  }

  async save(receipt: Receipt): Promise<void> {
    const started = startedMs(receipt);
    // a large receipt's text is made in the writer thread: its canonical text (16 MB of NULs: 96 MB) and the driver's
    // array parameter of it held the event loop for seconds
    await this.#writer.append(this.#thread && isLargeReceipt(receipt) ? { receipt, started } : { receipt, started, text: canonicalReceiptText(receipt) });
  }

  /** resolves when every receipt handed to `save` so far is stored or refused */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * A batch with a large receipt goes to the writer thread (its text is made there, and the driver builds its
   * parameters there), any other is appended on this pool; the BatchWriter hands over one batch at a time, so the chain
   * keeps the order of the saves either way.
   */
  #write(batch: ThreadItem[]): Promise<BatchOutcome> {
    if (this.#thread && batch.some((item) => item.text === undefined)) return this.#thread.write(batch);
    return appendPostgresReceipts(this.sql, batch as PendingReceipt[]);
  }

  /** Flushes, then ends the writer thread. */
  async close(): Promise<void> {
    await this.#writer.flush();
    await this.#thread?.close();
  }

  async get(id: string): Promise<Receipt | undefined> {
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
  }

  async getText(id: string, options: { caller?: string } = {}): Promise<string | Uint8Array | undefined> {
    const caller = options.caller ?? null;
    // its size first (octet_length reads a stored text's length, not the text)
    const [size] = await this.sql<Array<{ bytes: number }>>`SELECT octet_length(body) AS bytes FROM receipts WHERE id = ${id} AND (${caller}::text IS NULL OR caller = ${caller})`;
    if (!size) return undefined;
    // read by the writer thread, its bytes handed over: the driver here made one Buffer and one string of the whole row
    // in one turn of the event loop
    if (this.#thread && size.bytes > LARGE_RECEIPT_CHARACTERS) return this.#thread.read(id);
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
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

  async page(query: ReceiptQuery, maxBytes: number): Promise<ReceiptPage> {
    const { texts, more, endedEarly } = await this.pageTexts(query, maxBytes);
    return { receipts: texts.map((text) => JSON.parse(text) as Receipt), more, endedEarly };
  }

  /**
   * One snapshot (REPEATABLE READ): the sizes of the page's rows first (octet_length of a stored text reads its
   * length, not the text), then the text of only the rows that fit in `maxBytes`.
   */
  async pageTexts(query: ReceiptQuery, maxBytes: number): Promise<ReceiptTextPage> {
    const { limit, offset } = pageOf(query);
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
      const rows = await sql<Array<{ seq: string; bytes: number }>>`
        SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${this.#filtersOf(query)}
        ORDER BY started_ms DESC, seq DESC LIMIT ${limit + 1} OFFSET ${offset}`;
      const { taken, more, endedEarly } = fitInBytes(rows.map((row) => Number(row.bytes)), limit, maxBytes);
      const seqs = rows.slice(0, taken).map((row) => row.seq);
      const bodies = seqs.length === 0 ? [] : await sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ANY(${seqs}::bigint[]) ORDER BY started_ms DESC, seq DESC`;
      return { texts: bodies.map((row) => row.body), more, endedEarly };
    });
  }

  /**
   * As `page`, each receipt summarised here: PostgreSQL's json functions (->>, json_each) refuse a stored text holding
   * \u0000 anywhere ("unsupported Unicode escape sequence"), so a list read by them would fail over a call whose output
   * had a NUL. Still parsed on the event loop on PostgreSQL (a page is at most `maxBytes`, or its one first receipt).
   */
  async pageSummaries(query: ReceiptQuery, maxBytes: number): Promise<ReceiptSummaryPage> {
    const { receipts, more, endedEarly } = await this.page(query, maxBytes);
    return { summaries: receipts.map(summaryOfReceipt), more, endedEarly };
  }

  /** The bounded search of `list`, its finds summarised here (as `list` parsed them). */
  async searchSummaries(query: ReceiptQuery & { searchRows: number; searchBytes: number }): Promise<ReceiptSummary[]> {
    return (await this.list(query)).map(summaryOfReceipt);
  }

  /** a receipt's stored size, its caller's if given; undefined when there is none */
  async #size(id: string, caller: string | undefined): Promise<number | undefined> {
    const who = caller ?? null;
    const [size] = await this.sql<Array<{ bytes: number }>>`SELECT octet_length(body) AS bytes FROM receipts WHERE id = ${id} AND (${who}::text IS NULL OR caller = ${who})`;
    return size === undefined ? undefined : Number(size.bytes);
  }

  async excerpt(id: string, chars: number, options: { caller?: string } = {}): Promise<ReceiptExcerpt | undefined> {
    const size = await this.#size(id, options.caller);
    if (size === undefined) return undefined;
    // read, parsed and cut by the writer thread: the driver's string of the row and its parse here held the event loop
    if (this.#thread && size > LARGE_RECEIPT_CHARACTERS) return this.#thread.excerpt(id, chars);
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row && excerptOf(row.body, chars);
  }

  async rawField(id: string, field: RawField, options: { caller?: string } = {}): Promise<Uint8Array | undefined> {
    const size = await this.#size(id, options.caller);
    if (size === undefined) return undefined;
    if (this.#thread && size > LARGE_RECEIPT_CHARACTERS) return this.#thread.field(id, field);
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return (row && rawFieldOf(row.body, field)) ?? undefined;
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

  /**
   * Walks the chain in one snapshot, a page bounded in rows and bytes at a time: in a thread of its own where there is
   * one (a 10,000-row cursor page of 200 KB receipts was 2 GB held, parsed and hashed on the gateway's event loop),
   * else on this pool.
   */
  async verify(): Promise<ChainReport> {
    await this.#writer.flush();
    return this.#thread ? this.#thread.walk() : walkPostgresChain(this.sql);
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

