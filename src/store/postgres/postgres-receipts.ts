import type { Receipt } from '../../core/index.js';
import { BatchWriter, type BatchOutcome } from '../batch-writer.js';
import { canonicalReceiptText, GENESIS } from '../receipt-chain.js';
import { fitInBytes, pageOf, searchRowsOf, sinceMs, startedMs, type PendingReceipt } from '../receipt-rows.js';
import { isLargeReceipt, LARGE_RECEIPT_CHARACTERS, type ReceiptWriterThread, type ThreadItem } from '../receipt-writer-thread.js';
import { PRUNE_BATCH, prunablePrefix } from '../retention.js';
import { excerptOf, rawFieldOf, type RawField, type ReceiptExcerpt, type ReceiptSummary, type ReceiptSummaryPage } from '../receipt-summary.js';
import type { MatchQuery } from '../receipt-match.js';
import type { ChainLink, ChainReport, PruneResult, ReceiptPage, ReceiptQuery, ReceiptStore, ReceiptTextPage, RetentionPolicy } from '../store.js';
import type { Database } from './database.js';
import { walkPostgresChain } from './postgres-chain-walk.js';
import { PostgresTable } from './postgres-table.js';
import { LOCKS } from './postgres-migrations.js';
import { appendPostgresReceipts } from './receipt-append.js';
import { codeIs, mayMatch, postgresText, readMatches, summariseMatches } from './postgres-receipt-reads.js';

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
    // an id holding U+0000 names no stored receipt (PostgreSQL's text holds none): asked, the driver's query failed
    if (!postgresText(id)) return undefined;
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
  }

  async getText(id: string, options: { caller?: string } = {}): Promise<string | Uint8Array | undefined> {
    // its size first (octet_length reads a stored text's length, not the text)
    const size = await this.#size(id, options.caller);
    if (size === undefined) return undefined;
    // read by the writer thread, its bytes handed over: the driver here made one Buffer and one string of the whole row
    // in one turn of the event loop
    if (this.#thread && size > LARGE_RECEIPT_CHARACTERS) return this.#thread.read(id);
    const [row] = await this.sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE id = ${id}`;
    return row?.body;
  }

  async findByPrefix(prefix: string, limit: number): Promise<Receipt[]> {
    if (prefix === '' || !postgresText(prefix)) return [];
    // a byte-wise range (the text_pattern_ops operators, served by receipts_by_id_prefix whatever the database's
    // collation, and with the prefix as a parameter, which LIKE is not), then starts_with for the exact rule; the range
    // ends where SQLite's does (the prefix, then the highest code point)
    const rows = await this.sql<Array<{ body: string }>>`
      SELECT body FROM receipts
      WHERE id ~>=~ ${prefix} AND id ~<~ ${`${prefix}\u{10ffff}`} AND starts_with(id, ${prefix})
      ORDER BY started_ms DESC, seq DESC LIMIT ${limit}`;
    return rows.map((row) => JSON.parse(row.body) as Receipt);
  }

  /**
   * The filters of a query other than its text, as SQL conditions each starting with AND. A value holding U+0000 is
   * no column's (such a receipt is refused, receipt-append.ts) and no code's: it matches nothing, as on SQLite, where
   * as a parameter it failed the query.
   */
  #filtersOf(query: ReceiptQuery) {
    const sql = this.sql;
    const since = query.since === undefined ? undefined : sinceMs(query.since);
    const equals = (column: 'tool' | 'caller' | 'session', value: string | undefined) =>
      value === undefined ? sql`` : postgresText(value) ? sql`AND ${sql(column)} = ${value}` : sql`AND false`;
    return sql`
        ${query.status ? sql`AND ok = ${query.status === 'ok'}` : sql``}
        ${equals('tool', query.tool)} ${equals('caller', query.caller)} ${equals('session', query.session)}
        ${since !== undefined ? sql`AND started_ms >= ${since}` : sql``}
        ${query.until !== undefined ? sql`AND started_ms <= ${sinceMs(query.until)}` : sql``}
        ${query.code === undefined ? sql`` : postgresText(query.code) ? codeIs(sql, query.code) : sql`AND false`}`;
  }

  /** The rows of a page that fit in `maxBytes` (their sizes read, not their text), on `sql` (a snapshot's transaction). */
  async #pageRows(sql: Database, query: ReceiptQuery, maxBytes: number): Promise<{ rows: MatchQuery['rows']; more: boolean; endedEarly: boolean }> {
    const { limit, offset } = pageOf(query);
    const found = await sql<Array<{ seq: number; bytes: number }>>`
      SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${this.#filtersOf(query)}
      ORDER BY started_ms DESC, seq DESC LIMIT ${limit + 1} OFFSET ${offset}`;
    const rows = found.map((row) => ({ seq: Number(row.seq), bytes: Number(row.bytes) }));
    const { taken, more, endedEarly } = fitInBytes(rows.map((row) => row.bytes), limit, maxBytes);
    return { rows: rows.slice(0, taken), more, endedEarly };
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
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
      const { rows, more, endedEarly } = await this.#pageRows(sql as unknown as Database, query, maxBytes);
      const seqs = rows.map((row) => row.seq);
      const bodies = seqs.length === 0 ? [] : await sql<Array<{ body: string }>>`SELECT body FROM receipts WHERE seq = ANY(${seqs}::bigint[]) ORDER BY started_ms DESC, seq DESC`;
      return { texts: bodies.map((row) => row.body), more, endedEarly };
    });
  }

  /**
   * As `page`, each receipt summarised from its parsed text (PostgreSQL's json functions, `->>`, refuse a stored text
   * holding `\u0000` or a lone surrogate's escape anywhere: a list read by them failed over a call whose output had a
   * NUL). The rows are chosen here, sizes only; a page with more stored text than a large receipt is read and parsed by
   * the writer thread, where its page of 4 MiB (or one receipt of any size) was read and parsed on this event loop.
   */
  async pageSummaries(query: ReceiptQuery, maxBytes: number): Promise<ReceiptSummaryPage> {
    const { rows, more, endedEarly } = await this.#pageRows(this.sql, query, maxBytes);
    return { summaries: await this.#summarise({ rows, skip: 0, take: rows.length }), more, endedEarly };
  }

  /** A bounded search: its rows chosen by the database (`#searchRows`), its matches decided and summarised by `#summarise`. */
  async searchSummaries(query: ReceiptQuery & { searchRows: number; searchBytes: number }): Promise<ReceiptSummary[]> {
    return this.#summarise(await this.#searchRows(query));
  }

  /** The matches of `match` summarised: read and parsed by the writer thread when their stored text is more than a large receipt's, else here. */
  #summarise(match: MatchQuery): Promise<ReceiptSummary[]> {
    const bytes = match.rows.reduce((sum, row) => sum + row.bytes, 0);
    if (this.#thread && bytes > LARGE_RECEIPT_CHARACTERS) return this.#thread.matches(match);
    return summariseMatches(this.sql, match);
  }

  /**
   * The rows a search reads, in one snapshot: the newest that meet the column filters (at most searchRows, and
   * searchBytes of stored text: their sizes are read first, not their text; all of them when unbounded), then of those
   * the ones whose stored text may hold the text and the code (`mayMatch`: substrings, no json function), sizes only.
   * The parsed receipts decide (`receiptMatches`), and the page's offset and limit are counted among those that match.
   */
  async #searchRows(query: ReceiptQuery): Promise<MatchQuery> {
    const { limit, offset } = pageOf(query);
    const searchRows = searchRowsOf(query);
    const wanted = { ...(query.text ? { text: query.text } : {}), ...(query.code === undefined ? {} : { code: query.code }) };
    const filters = this.#filtersOf({ ...query, code: undefined });
    const rows = await this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (sql) => {
      if (searchRows === undefined) {
        return sql<Array<{ seq: number; bytes: number }>>`SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${filters} ${mayMatch(this.sql, wanted)} ORDER BY started_ms DESC, seq DESC`;
      }
      const candidates = await sql<Array<{ seq: number; bytes: number }>>`
        SELECT seq, octet_length(body) AS bytes FROM receipts WHERE true ${filters} ORDER BY started_ms DESC, seq DESC LIMIT ${searchRows}`;
      const { taken } = fitInBytes(candidates.map((row) => Number(row.bytes)), candidates.length, query.searchBytes ?? Number.POSITIVE_INFINITY);
      const seqs = candidates.slice(0, taken).map((row) => row.seq);
      return sql<Array<{ seq: number; bytes: number }>>`SELECT seq, octet_length(body) AS bytes FROM receipts
        WHERE seq = ANY(${seqs}::bigint[]) ${mayMatch(this.sql, wanted)} ORDER BY started_ms DESC, seq DESC`;
    });
    return { rows: rows.map((row) => ({ seq: Number(row.seq), bytes: Number(row.bytes) })), ...wanted, skip: offset, take: limit };
  }

  /** a receipt's stored size, its caller's if given; undefined when there is none (an id or caller holding U+0000 names none) */
  async #size(id: string, caller: string | undefined): Promise<number | undefined> {
    const who = caller ?? null;
    if (!postgresText(id) || (who !== null && !postgresText(who))) return undefined;
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
    // a text or a code is looked for as a search does (the database cannot read them out of every stored text)
    if (query.text || query.code !== undefined) return readMatches(this.sql, await this.#searchRows(query), (receipt) => receipt);
    const { limit, offset } = pageOf(query);
    const rows = await this.sql<Array<{ body: string }>>`
      SELECT body FROM receipts WHERE true ${this.#filtersOf(query)} ORDER BY started_ms DESC, seq DESC LIMIT ${limit} OFFSET ${offset}`;
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

