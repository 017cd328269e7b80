import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import type { Receipt } from '../core/index.js';
import { BatchWriter, type BatchOutcome } from './batch-writer.js';
import { receiptAppender } from './receipt-append.js';
import { walkChain } from './chain-walk.js';
import { canonicalReceiptText, GENESIS } from './receipt-chain.js';
import { sqliteChainSource, walkSqliteFile } from './sqlite-chain-walk.js';
import { pageBytes, readPageTexts } from './sqlite-page.js';
import { excerptOf, rawFieldOf, type RawField, type ReceiptExcerpt, type ReceiptSummary, type ReceiptSummaryPage } from './receipt-summary.js';
import { readSummaryPage, searchBytes, searchSummaries, type SqliteSearchQuery } from './sqlite-summaries.js';
import { PRUNE_BATCH, prunablePrefix } from './retention.js';
import { fitInBytes, startedMs, sinceMs, pageOf, searchRowsOf, type PendingReceipt } from './receipt-rows.js';
import { isLargeReceipt, LARGE_RECEIPT_CHARACTERS, type ReceiptWriterThread, type ThreadItem } from './receipt-writer-thread.js';
import { WalSync } from './wal-sync.js';
import type { ChainLink, ChainReport, PruneResult, ReceiptPage, ReceiptQuery, ReceiptStore, ReceiptTextPage, RetentionPolicy } from './store.js';

const yieldToCalls = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Receipts in the `receipts` table: indexed columns to filter on, the canonical text, and its link of the chain. */
export class SqliteReceiptStore implements ReceiptStore {
  readonly #database: Database;
  readonly #path: string;
  readonly #now: () => number;
  readonly #writer: BatchWriter<ThreadItem>;
  readonly #append: (batch: PendingReceipt[]) => BatchOutcome;
  readonly #thread: ReceiptWriterThread | undefined;
  /** the log's sync off the event loop (a WAL file at FULL), else each commit syncs itself */
  readonly #walSync: WalSync | undefined;
  readonly #head: Statement<[], ChainLink>;
  readonly #checkpoint: Statement<[], ChainLink>;
  readonly #byId: Statement<[string], { body: string }>;
  /** a receipt's size, its caller's if given (`caller` null: any caller's), without reading its text */
  readonly #sizeById: Statement<[{ id: string; caller: string | null }], { bytes: number }>;
  readonly #byPrefix: Statement<[string, string, number], { body: string }>;
  /** one prepared statement per combination of filters */
  readonly #listings = new Map<string, Statement<Array<string | number>, { body: string }>>();

  /** `thread`: where large receipts are written (a file's store), off this thread's event loop */
  constructor(database: Database, options: { path: string; now: () => number; thread?: ReceiptWriterThread }) {
    this.#database = database;
    this.#path = options.path;
    this.#now = options.now;
    this.#thread = options.thread;
    this.#append = receiptAppender(database);
    this.#walSync = WalSync.of(database, options.path);
    this.#head = database.prepare('SELECT seq, hash FROM receipt_chain WHERE id = 1');
    this.#checkpoint = database.prepare('SELECT seq, hash FROM receipt_checkpoints ORDER BY seq DESC LIMIT 1');
    this.#byId = database.prepare('SELECT body FROM receipts WHERE id = ?');
    this.#sizeById = database.prepare('SELECT octet_length(body) AS bytes FROM receipts WHERE id = @id AND (@caller IS NULL OR caller = @caller)');
    this.#writer = new BatchWriter((batch) => this.#write(batch));
    // a range on the unique index of ids: prefix to prefix + the highest character
    this.#byPrefix = database.prepare('SELECT body FROM receipts WHERE id >= ? AND id < ? ORDER BY started_ms DESC, seq DESC LIMIT ?');
  }

  async save(receipt: Receipt): Promise<void> {
    const started = startedMs(receipt);
    // a large receipt's text is made in the writer thread: its canonical text alone held the event loop (16 MB of NULs: 96 MB)
    await this.#writer.append(this.#thread && isLargeReceipt(receipt) ? { receipt, started } : { receipt, started, text: canonicalReceiptText(receipt) });
  }

  /** resolves when every receipt handed to `save` so far is stored or refused */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * A batch with a large receipt goes to the writer thread, any other is appended here (receiptAppender) and, in a
   * WAL file, synced to disk off the event loop before its saves resolve (WalSync); the BatchWriter hands over one
   * batch at a time, so the chain keeps the order of the saves either way.
   */
  async #write(batch: ThreadItem[]): Promise<BatchOutcome> {
    if (this.#thread && batch.some((item) => item.text === undefined)) return this.#thread.write(batch);
    if (!this.#walSync) return this.#append(batch as PendingReceipt[]);
    const outcome = this.#walSync.relaxed(() => this.#append(batch as PendingReceipt[]));
    try {
      await this.#walSync.flush();
    } catch (error) {
      throw new Error(`the batch was written, but the store's log could not be synced to disk: ${(error as Error).message}`);
    }
    return outcome;
  }

  /** Flushes, then ends the writer thread. */
  async close(): Promise<void> {
    await this.#writer.flush();
    await this.#thread?.close();
  }

  async get(id: string): Promise<Receipt | undefined> {
    const row = this.#byId.get(id);
    return row ? (JSON.parse(row.body) as Receipt) : undefined;
  }

  async getText(id: string, options: { caller?: string } = {}): Promise<string | Uint8Array | undefined> {
    const size = this.#sizeById.get({ id, caller: options.caller ?? null });
    if (!size) return undefined;
    // read by the writer thread, its bytes handed over: 96 MB read here held the event loop ~0.4 s of CPU
    if (this.#thread && size.bytes > LARGE_RECEIPT_CHARACTERS) return this.#thread.read(id);
    return this.#byId.get(id)?.body;
  }

  async findByPrefix(prefix: string, limit: number): Promise<Receipt[]> {
    if (prefix === '') return [];
    return this.#byPrefix.all(prefix, `${prefix}\uffff`, limit).map((row) => JSON.parse(row.body) as Receipt);
  }

  /** the filters of a query other than its text, as a WHERE clause (empty when none) and its values */
  #filtersOf(query: ReceiptQuery): { filters: string; values: Array<string | number> } {
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
    for (const [column, value] of [['caller', query.caller], ['session', query.session]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      values.push(value);
    }
    if (query.since !== undefined) {
      where.push('started_ms >= ?');
      values.push(sinceMs(query.since));
    }
    if (query.until !== undefined) {
      where.push('started_ms <= ?');
      values.push(sinceMs(query.until));
    }
    // caller and session are columns of their own (indexed by caller); code is read from the body
    if (query.code !== undefined) {
      where.push("json_extract(body, '$.code') = ?");
      values.push(query.code);
    }
    return { filters: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', values };
  }

  #statement(sql: string): Statement<Array<string | number>, { body: string }> {
    let statement = this.#listings.get(sql);
    if (!statement) {
      statement = this.#database.prepare<Array<string | number>, { body: string }>(sql);
      this.#listings.set(sql, statement);
    }
    return statement;
  }

  async page(query: ReceiptQuery, maxBytes: number): Promise<ReceiptPage> {
    const { texts, more, endedEarly } = await this.pageTexts(query, maxBytes);
    return { receipts: texts.map((text) => JSON.parse(text) as Receipt), more, endedEarly };
  }

  /**
   * One snapshot (sqlite-page.ts). A page with more stored text than a large receipt is read by the writer thread (its
   * rows' sizes are read here first): 4 MiB of receipts read here held the event loop ~20-30 ms a page on this host.
   */
  async pageTexts(query: ReceiptQuery, maxBytes: number): Promise<ReceiptTextPage> {
    const { filters, values } = this.#filtersOf(query);
    const page = { filters, values, ...pageOf(query), maxBytes };
    if (this.#thread && pageBytes(this.#database, page) > LARGE_RECEIPT_CHARACTERS) return this.#thread.page(page);
    return readPageTexts(this.#database, page);
  }

  /** As pageTexts: a page with more stored text than a large receipt is summarised by the writer thread (SQLite parses each row's text). */
  async pageSummaries(query: ReceiptQuery, maxBytes: number): Promise<ReceiptSummaryPage> {
    const { filters, values } = this.#filtersOf(query);
    const page = { filters, values, ...pageOf(query), maxBytes };
    if (this.#thread && pageBytes(this.#database, page) > LARGE_RECEIPT_CHARACTERS) return this.#thread.summaries(page);
    return readSummaryPage(this.#database, page);
  }

  /** A search that would read more stored text than a large receipt runs in the writer thread: 16 MiB scanned here held the event loop. */
  async searchSummaries(query: ReceiptQuery & { searchRows: number; searchBytes: number }): Promise<ReceiptSummary[]> {
    const { filters, values } = this.#filtersOf({ ...query, code: undefined });
    const search: SqliteSearchQuery = {
      filters, values, ...(query.code === undefined ? {} : { code: query.code }), ...(query.text ? { text: query.text } : {}),
      searchRows: Math.max(1, Math.floor(query.searchRows)), searchBytes: query.searchBytes, ...pageOf(query),
    };
    if (this.#thread && searchBytes(this.#database, search) > LARGE_RECEIPT_CHARACTERS) return this.#thread.search(search);
    return searchSummaries(this.#database, search);
  }

  async excerpt(id: string, chars: number, options: { caller?: string } = {}): Promise<ReceiptExcerpt | undefined> {
    const size = this.#sizeById.get({ id, caller: options.caller ?? null });
    if (!size) return undefined;
    // parsed in the writer thread: 16 MB of output (96 MB of text when NULs) parsed here held the event loop
    if (this.#thread && size.bytes > LARGE_RECEIPT_CHARACTERS) return this.#thread.excerpt(id, chars);
    const row = this.#byId.get(id);
    return row && excerptOf(row.body, chars);
  }

  async rawField(id: string, field: RawField, options: { caller?: string } = {}): Promise<Uint8Array | undefined> {
    const size = this.#sizeById.get({ id, caller: options.caller ?? null });
    if (!size) return undefined;
    if (this.#thread && size.bytes > LARGE_RECEIPT_CHARACTERS) return this.#thread.field(id, field);
    const row = this.#byId.get(id);
    return (row && rawFieldOf(row.body, field)) ?? undefined;
  }

  async list(query: ReceiptQuery = {}): Promise<Receipt[]> {
    const { filters, values } = this.#filtersOf(query);
    const search = query.text !== undefined && query.text !== '' ? "(instr(lower(coalesce(json_extract(body, '$.output'), '')), lower(?)) > 0 OR instr(lower(coalesce(json_extract(body, '$.error'), '')), lower(?)) > 0)" : undefined;
    const searchRows = searchRowsOf(query);
    const { limit, offset } = pageOf(query);
    let sql: string;
    if ((search || query.code !== undefined) && searchRows !== undefined) {
      // a bounded search reads the newest rows that meet the column filters (at most searchRows, and searchBytes of
      // stored text: their sizes are read first, not their text), then looks for the text, and the code, in those
      // alone, in one snapshot: code is read from the body too, and unbounded it parsed every row (review J F3)
      const columns = this.#filtersOf({ ...query, code: undefined });
      const sizes = this.#database.prepare<Array<string | number>, { seq: number; bytes: number }>(
        `SELECT seq, octet_length(body) AS bytes FROM receipts ${columns.filters} ORDER BY started_ms DESC, seq DESC LIMIT ?`,
      );
      const code = query.code === undefined ? '' : "AND json_extract(body, '$.code') = ?";
      const found = this.#statement(`SELECT body FROM receipts WHERE seq IN (SELECT value FROM json_each(?)) ${code} ${search ? `AND ${search}` : ''} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`);
      const rows = this.#database.transaction(() => {
        const candidates = sizes.all(...columns.values, searchRows);
        const { taken } = fitInBytes(candidates.map((row) => row.bytes), candidates.length, query.searchBytes ?? Number.POSITIVE_INFINITY);
        const matching = [...(query.code === undefined ? [] : [query.code]), ...(search ? [query.text!, query.text!] : [])];
        return found.all(JSON.stringify(candidates.slice(0, taken).map((row) => row.seq)), ...matching, limit, offset);
      })();
      return rows.map((row) => JSON.parse(row.body) as Receipt);
    } else {
      sql = `SELECT body FROM receipts ${search ? `${filters ? `${filters} AND` : 'WHERE'} ${search}` : filters} ORDER BY started_ms DESC, seq DESC LIMIT ? OFFSET ?`;
      if (search) values.push(query.text!, query.text!);
    }
    const rows = this.#statement(sql).all(...values, limit, offset);
    return rows.map((row) => JSON.parse(row.body) as Receipt);
  }

  /**
   * Walks the chain in one snapshot, a page bounded in rows and bytes at a time: a file's in a thread of its own (the
   * walk on this thread held its event loop 1.2 s over 100 receipts of 1 MB, and a page of 5,000 such rows was 5 GB),
   * else on a read-only connection of its own here, yielding between pages. An in-memory store has no second
   * connection: its pages are read here without yielding (its source's promises settle as microtasks, so nothing
   * else runs between them), in one snapshot.
   */
  async verify(): Promise<ChainReport> {
    await this.#writer.flush();
    if (this.#path === ':memory:') return walkChain(sqliteChainSource(this.#database));
    return this.#thread ? this.#thread.walk() : walkSqliteFile(this.#path, { pause: yieldToCalls });
  }

  /** Deletes the oldest receipts the policy lets go, `PRUNE_BATCH` per transaction, each batch moving the checkpoint to its last link. */
  async prune(policy: RetentionPolicy, options: { signal?: AbortSignal } = {}): Promise<PruneResult> {
    const oldest = this.#database.prepare<[number, number], { seq: number; started_ms: number; hash: string }>(
      'SELECT seq, started_ms, hash FROM receipts WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    const remove = this.#database.prepare<[number]>('DELETE FROM receipts WHERE seq <= ?');
    const record = this.#database.prepare('INSERT INTO receipt_checkpoints (seq, hash, pruned_ms, deleted) VALUES (?, ?, ?, ?)');
    const batch = this.#database.transaction((): { deleted: number; checkpoint: ChainLink } => {
      const checkpoint = this.#checkpoint.get() ?? GENESIS;
      const head = this.#head.get() ?? GENESIS;
      const rows = oldest.all(checkpoint.seq, PRUNE_BATCH);
      const count = prunablePrefix(rows, head.seq, policy, this.#now());
      if (count === 0) return { deleted: 0, checkpoint };
      const last = rows[count - 1]!;
      const deleted = remove.run(last.seq).changes;
      record.run(last.seq, last.hash, this.#now(), deleted);
      return { deleted, checkpoint: { seq: last.seq, hash: last.hash } };
    });
    let total = 0;
    for (;;) {
      const pass = batch.immediate();
      total += pass.deleted;
      if (pass.deleted < PRUNE_BATCH || options.signal?.aborted) return { deleted: total, checkpoint: pass.checkpoint };
      await yieldToCalls();
    }
  }
}
