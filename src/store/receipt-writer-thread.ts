import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Receipt } from '../core/index.js';
import type { BatchOutcome } from './batch-writer.js';
import type { MatchQuery } from './receipt-match.js';
import type { PendingReceipt } from './receipt-rows.js';
import type { ReceiptExcerpt, ReceiptSummary, ReceiptSummaryPage, RawField } from './receipt-summary.js';
import type { SqlitePageQuery } from './sqlite-page.js';
import type { SqliteSearchQuery } from './sqlite-summaries.js';
import type { ChainReport, ReceiptTextPage } from './store.js';

/** A receipt sent to the writer thread: its text when this thread made it, else the thread makes it. */
export interface ThreadItem {
  receipt: Receipt;
  started: number;
  text?: string;
}

/** The store a writer thread opens a connection of its own to: a SQLite file, or a PostgreSQL database. */
export type WriterTarget = { sqlite: string; postgres?: undefined } | { postgres: { url: string; connectTimeoutSeconds?: number }; sqlite?: undefined };

/** How a thread of this code is started: to write (and read) a store's large receipts, or for one walk of its chain. */
export type WalkerStart = WriterTarget & { walk?: true };

/** What a writer thread does on its connection (receipt-writer-sqlite.ts, postgres/receipt-writer-postgres.ts). */
export interface WriterConnection {
  /** links and stores one batch, each item's text made already; each item's outcome */
  append(batch: PendingReceipt[]): BatchOutcome | Promise<BatchOutcome>;
  /** a receipt's stored text as UTF-8 bytes of their own (to be handed over), or null when there is none */
  read(id: string): Uint8Array | null | Promise<Uint8Array | null>;
  /** a receipt's stored text as a string (to be parsed in the thread), or null when there is none */
  text(id: string): string | null | Promise<string | null>;
  /** a page of receipts' stored texts, in one snapshot (SQLite) */
  page?(query: SqlitePageQuery): ReceiptTextPage;
  /** a page of receipts' summaries, in one snapshot (SQLite) */
  summaries?(query: SqlitePageQuery): ReceiptSummaryPage;
  /** a bounded search's summaries, in one snapshot (SQLite) */
  search?(query: SqliteSearchQuery): ReceiptSummary[];
  /** the summaries of the chosen rows that match, read and parsed in the thread (PostgreSQL) */
  matches?(query: MatchQuery): Promise<ReceiptSummary[]>;
  close(): void | Promise<void>;
}

/** What the store asks its writer thread to read for a view of calls, its answer a `value`. */
export type ViewRequest =
  | { summaries: SqlitePageQuery }
  | { search: SqliteSearchQuery }
  | { matches: MatchQuery }
  | { excerpt: { receipt: string; chars: number } }
  | { field: { receipt: string; name: RawField } };

/** What the store asks its writer thread. */
export type WriterRequest =
  | { id: number; batch: ThreadItem[]; close?: undefined; read?: undefined; page?: undefined; view?: undefined }
  | { id: number; read: string; batch?: undefined; close?: undefined; page?: undefined; view?: undefined }
  | { id: number; page: SqlitePageQuery; batch?: undefined; close?: undefined; read?: undefined; view?: undefined }
  | { id: number; view: ViewRequest; batch?: undefined; close?: undefined; read?: undefined; page?: undefined }
  | { close: true };

/** The thread's answer to one batch: each item refused (its error) or stored (null), or why the whole batch failed. */
export type WriterReply =
  | { id: number; refused: Array<{ message: string; code?: string } | null>; error?: undefined; text?: undefined; page?: undefined }
  | { id: number; text: Uint8Array | null; refused?: undefined; error?: undefined; page?: undefined }
  | { id: number; page: ReceiptTextPage; text?: undefined; refused?: undefined; error?: undefined }
  | { id: number; value: unknown; page?: undefined; text?: undefined; refused?: undefined; error?: undefined }
  | { id: number; error: string; page?: undefined };

// the compiled worker: beside this code in dist/ (tsc's dist/store/, or the CLI's bundle in dist/bundle/, which has
// an entry of its own for it); from src/ (tests, after the build the test script runs first), tsc's
const WORKER_PATH = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../dist/store/receipt-writer-worker.js' : './receipt-writer-worker.js', import.meta.url));

/** Whether the writer thread's code is there to start (a checkout whose dist/ is not built writes in this thread). */
export function writerThreadAvailable(): boolean {
  return existsSync(WORKER_PATH);
}

/**
 * A worker thread with its own connection to the store (a SQLite file in WAL mode, whose readers here see what it
 * commits; or a PostgreSQL database), which writes and reads large receipts: their canonical text, SHA-256 and the
 * insert of tens of MB held the gateway's event loop for seconds, and so did reading one back. Started at its first
 * request; one batch at a time (the store's BatchWriter sends them in order), so the chain keeps the order receipts
 * were saved in. It holds the process open only while a request is in it.
 */
export class ReceiptWriterThread {
  readonly #target: WriterTarget;
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, Waiting>();
  readonly #walkers = new Set<Worker>();

  constructor(target: WriterTarget) {
    this.#target = target;
  }

  /** Writes one batch in the thread; resolves to each item's outcome, as an in-thread append would. */
  write(batch: ThreadItem[]): Promise<BatchOutcome> {
    return this.#ask<BatchOutcome>((id) => ({ id, batch }));
  }

  /** A receipt's stored text, its bytes read in the thread and handed over (not copied); undefined when there is none. */
  async read(receiptId: string): Promise<Uint8Array | undefined> {
    return (await this.#ask<Uint8Array | null>((id) => ({ id, read: receiptId }))) ?? undefined;
  }

  /** A page of receipts' stored texts read by the thread, in one snapshot of its own (SQLite). */
  page(query: SqlitePageQuery): Promise<ReceiptTextPage> {
    return this.#ask<ReceiptTextPage>((id) => ({ id, page: query }));
  }

  /** A page of summaries read by the thread (SQLite): SQLite's parse of each row's text is done there. */
  summaries(query: SqlitePageQuery): Promise<ReceiptSummaryPage> {
    return this.#ask<ReceiptSummaryPage>((id) => ({ id, view: { summaries: query } }));
  }

  /** A bounded search run by the thread (SQLite): its scan of up to its bytes of stored text is done there. */
  search(query: SqliteSearchQuery): Promise<ReceiptSummary[]> {
    return this.#ask<ReceiptSummary[]>((id) => ({ id, view: { search: query } }));
  }

  /** The summaries of the rows of `query` that match it, read and parsed by the thread (PostgreSQL, whose json functions cannot read every stored text). */
  matches(query: MatchQuery): Promise<ReceiptSummary[]> {
    return this.#ask<ReceiptSummary[]>((id) => ({ id, view: { matches: query } }));
  }

  /** A receipt read and parsed by the thread, each string cut to `chars` there; undefined when there is none. */
  async excerpt(receiptId: string, chars: number): Promise<ReceiptExcerpt | undefined> {
    return (await this.#ask<ReceiptExcerpt | null>((id) => ({ id, view: { excerpt: { receipt: receiptId, chars } } }))) ?? undefined;
  }

  /** One text field of a receipt, whole, read and parsed by the thread, its bytes handed over; undefined when there is none. */
  async field(receiptId: string, name: RawField): Promise<Uint8Array | undefined> {
    return (await this.#ask<Uint8Array | null>((id) => ({ id, view: { field: { receipt: receiptId, name } } }))) ?? undefined;
  }

  /**
   * Walks the store's chain in a thread started for this walk alone, on a connection of its own: reading and hashing
   * every stored receipt held the gateway's event loop (100 receipts of 1 MB: 1.2 s), and in the writer thread a long
   * walk would hold up the writes queued behind it. Ended by `close` if still walking.
   */
  walk(): Promise<ChainReport> {
    const worker = new Worker(WORKER_PATH, { workerData: { ...this.#target, walk: true } satisfies WalkerStart, execArgv: [] });
    this.#walkers.add(worker);
    return new Promise<ChainReport>((resolve, reject) => {
      worker.once('message', (reply: { report: ChainReport; error?: undefined } | { error: string }) => (reply.error === undefined ? resolve(reply.report) : reject(new Error(reply.error))));
      worker.once('error', reject);
      worker.once('exit', (code) => {
        this.#walkers.delete(worker);
        reject(new Error(`the chain walk's thread exited with code ${code} before it reported`));
      });
    });
  }

  #ask<T>(request: (id: number) => WriterRequest): Promise<T> {
    const worker = this.#started();
    const id = (this.#next += 1);
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.ref();
      try {
        worker.postMessage(request(id));
      } catch (error) {
        // a member that cannot be cloned (a function): nothing was sent
        this.#settled(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Ends the thread once what was sent to it is answered (the store flushes first), and any walk still running. */
  async close(): Promise<void> {
    await Promise.all([...this.#walkers].map((walker) => walker.terminate()));
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ close: true } satisfies WriterRequest);
    await exited;
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_PATH, { workerData: this.#target, execArgv: [] });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const waiting = this.#settled(reply.id);
      if (!waiting) return;
      if (reply.error !== undefined) waiting.reject(new Error(reply.error));
      else if (reply.page !== undefined) waiting.resolve(reply.page);
      else if ('value' in reply) waiting.resolve(reply.value);
      else if (reply.refused === undefined) waiting.resolve(reply.text);
      else waiting.resolve(reply.refused.map((refusal) => (refusal ? Object.assign(new Error(refusal.message), refusal.code ? { code: refusal.code } : {}) : undefined)));
    });
    const lost = (why: string): void => {
      if (this.#worker === worker) this.#worker = undefined;
      // a batch in a thread that died may or may not be committed: its callers are told it was not confirmed
      for (const [id, waiting] of this.#waiting) {
        this.#waiting.delete(id);
        waiting.reject(new Error(`the receipt writer thread ${why} before it confirmed the write`));
      }
    };
    worker.on('error', (error) => lost(`failed (${error.message})`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    this.#worker = worker;
    return worker;
  }

  #settled(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (this.#waiting.size === 0) this.#worker?.unref();
    return waiting;
  }
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** Receipts with more text than this (output, stderr, error, params, structured content together) go to the writer thread. */
export const LARGE_RECEIPT_CHARACTERS = 256 * 1024;
// a receipt of very many small values costs its canonical text too: counted as large past this many values
const LARGE_RECEIPT_VALUES = 20_000;

/**
 * Whether a receipt is large enough to be written in the writer thread: its strings' lengths summed (each in O(1)),
 * stopping as soon as it is; a small one is written in this thread, where it costs less than a thread's round trip.
 */
export function isLargeReceipt(receipt: Receipt): boolean {
  let characters = 0;
  let values = 0;
  const stack: unknown[] = [receipt];
  while (stack.length > 0) {
    const value = stack.pop();
    values += 1;
    if (typeof value === 'string') characters += value.length;
    else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        characters += key.length;
        stack.push(member);
      }
    }
    if (characters > LARGE_RECEIPT_CHARACTERS || values > LARGE_RECEIPT_VALUES) return true;
  }
  return false;
}
