import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { parseEntry, type ScanEntry } from './build-index.js';
import { summarise, summaryOf, type EntrySummary, type SummarisedEntry } from './entry-summary.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import type { ParseOptions } from './yaml-mapping.js';
import { StringTable } from './string-table.js';

/**
 * Below this many files the scan parses in its own thread. A pool costs each thread ~0.4 s of CPU to load yaml and
 * ajv and compile the schemas, and the main thread a structured clone of every file and entry both ways; since the
 * fast YAML reader a generated definition costs ~0.06-0.07 ms to parse and validate, and the clone costs about as
 * much. Measured on 2 cores at load 9-14 (2026-12-02, `bench/scan/parse-cost.ts`, `bench/scan/cold.ts`): 20,000
 * files 5.8 s of CPU and 11.1 s of wall pooled vs 1.4 s and 2.8 s in one thread; a cold scan of 10,000 tools the
 * same CPU either way and 54 MB more RSS pooled. But a cold scan of 100,000 in one thread ran more than twice as long
 * as before with the pool (over 16 minutes against 8, load 9-14; not profiled: the reason then given, an isomorphic-git
 * cache of every object read, was measured false on 2026-12-02: its pack index caches nothing once read from a `.idx`).
 * So from 20,000 files on, the pool parses (not measured between 10,000 and 100,000).
 */
export const POOL_THRESHOLD = 20_000;
const BATCH = 64;

/**
 * Files handed to the threads and not yet parsed, past which readers wait. Reading a packed definition costs less
 * than parsing it (~0.07 ms against ~0.15 ms of a thread since the scanner reads packs with Node's zlib): without a
 * bound every file read, its copy in a thread's queue and its entry waited in memory at once (a cold scan of 100,000
 * tools peaked at 1.19 GB against 0.79 GB before the faster reads). 1,024 files is ~0.1 s of the threads' work.
 */
export const MAX_IN_FLIGHT = 1024;

// a thread that runs away with memory is ended by V8, not the gateway (files are at most a few MiB each, and 4 MiB of
// text once expanded): Node ends a thread past these with ERR_WORKER_OUT_OF_MEMORY, its files parsed again here — but
// not an allocation V8 makes outside the heap's accounting, which aborts the process (review Z10-1: a regexp's matches
// over a 90 MB line; asciiJson now replaces a slice at a time, and the expanded text is bounded before it is written). A parse's
// garbage dies young: with a young generation of up to 64 MB each thread filled it before collecting, and the two
// threads held ~125 MB more at the peak of a cold scan of 100,000 tools (issue #18, measured 2026-12-02)
const WORKER_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 4 };

// the compiled worker: beside this code in dist/ (tsc's dist/scanner/, or the CLI's bundle in dist/bundle/, which has
// an entry of its own for it); from src/ (tests, after the build the test script runs first), tsc's
const WORKER_PATH = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../dist/scanner/parse-worker.js' : './parse-worker.js', import.meta.url));

/** Parses definition files: in this thread for a few, in a pool of worker threads for many (YAML parsing is CPU-bound). */
export interface Parser<Result = ScanEntry> {
  /** queues a file; resolves with its entry, rejects only if the thread parsing it died */
  parse(file: DefinitionFile): Promise<Result>;
  /** resolves once another file may be queued: readers wait here while the threads are behind */
  ready(): Promise<void>;
  /** sends any queued files and stops the threads once every entry is back */
  close(): Promise<void>;
  readonly threads: number;
}

/**
 * From this many bytes on, a definition is parsed in a thread even when the scan parses in its own (fewer files than
 * `POOL_THRESHOLD`), so that one large definition does not hold the event loop (review Z14, Z14-3: a 0.9 MB `TOOL.hdlp`
 * of 90,000 keys held `hldp serve`'s loop 1.3 s in a small registry's rescan; the rule is no stall over 50 ms). Measured
 * on 2 cores at load ~12 (2026-12-06, fixz23): the costliest shapes (many unknown keys, nested flow mappings) took up to
 * ~15-25 ms of CPU at 8 KiB and 35-140 ms at 16 KiB, a realistic definition of 1-3.5 KB ~1-3 ms. Such a file costs
 * the scan a thread's start (~0.4 s of that thread's CPU, off the loop), not more of the loop.
 */
export const LARGE_DEFINITION_BYTES = 8 * 1024;

/** A parser sized for `files` parses. */
export function createParser(files: number, options: ParseOptions = {}): Parser {
  const here: Parser = { threads: 0, parse: async (file) => parseEntry(file, options), ready: async () => undefined, close: async () => undefined };
  if (!existsSync(WORKER_PATH)) return here;
  if (files < POOL_THRESHOLD) return new LargeInThread(here, () => new PoolParser<ScanEntry>(1, options));
  return new PoolParser<ScanEntry>(threadCount(), options);
}

/**
 * A parser that yields each entry as its summary and its cache line (`SummarisedEntry`): a cold scan that streams its
 * entries to the cache. From `summaryThreadFrom()` files on, one thread parses while this one reads the files from the
 * pack (2 cores: the parse was ~60% of a 100,000-tool scan's reading, all on this thread). Measured at 100,000 generated
 * tools over smart HTTP (issue #18, cold20, 2026-12-06, load 14-27, three alternated pairs): this thread's CPU 9.4-10.9 s
 * against 16.5-19.2 s, the process's +1.4-4.2 s, peak RSS 278-287 MiB against 285-290 (cold19's first version: +7-23 MB,
 * the thread's lines in its own malloc arena and each summary's copies of its folder and oid). Two threads were tried
 * before (2026-12-02) and cost ~110 MB; a batch's files cross in one buffer handed over, its lines in one string, and
 * each summary is made again here so that it shares what summaries made here share.
 */
export function createSummaryParser(files: number, options: ParseOptions = {}, limits: ResourceLimits = WORKER_LIMITS): Parser<SummarisedEntry> {
  const here: Parser<SummarisedEntry> = { threads: 0, parse: async (file) => summarise(parseEntry(file, options)), ready: async () => undefined, close: async () => undefined };
  if (!existsSync(WORKER_PATH)) return here;
  const thread = (): Parser<SummarisedEntry> => new PoolParser<SummarisedEntry>(1, options, true, limits);
  return files < summaryThreadFrom() ? new LargeInThread(here, thread) : thread();
}

/**
 * From how many files a cold scan parses in a thread beside the reading: `HLDP_SCAN_THREAD_FROM` (a whole number; 1
 * always, for a test of that path on a small repository), else `POOL_THRESHOLD`.
 */
export function summaryThreadFrom(): number {
  const given = process.env.HLDP_SCAN_THREAD_FROM?.trim();
  return given !== undefined && /^\d{1,9}$/.test(given) ? Number(given) : POOL_THRESHOLD;
}

/** What a thread sends back for a batch of summaries: each entry's summary and its line's length, the lines (ASCII) one after another in `lines`. */
export interface SummaryBatch {
  results: Array<{ id: number; summary: EntrySummary; length: number }>;
  lines: string;
}

/** A batch of files as sent to a thread: their contents one after another in `bytes`, handed over rather than copied. */
export interface FileBatch {
  files: Array<{ id: number; kind?: DefinitionFile['kind']; path: string; folder: string; oid: string; length: number }>;
  bytes: ArrayBuffer;
}

function threadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

interface Waiter<Result> {
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
  /** the file's folder and oid as this thread holds them (the listing's strings), given back to its summary */
  folder: string;
  oid: string;
}

/**
 * A scan of a few files: each parsed in this thread but one of `LARGE_DEFINITION_BYTES` or more, which goes to a thread
 * started for the first such file (and stopped by `close`). Entries come back as the thread gives them: the same as here.
 */
class LargeInThread<Result> implements Parser<Result> {
  private thread: Parser<Result> | undefined;

  constructor(
    private readonly here: Parser<Result>,
    private readonly start: () => Parser<Result>,
  ) {}

  get threads(): number {
    return this.thread?.threads ?? 0;
  }

  parse(file: DefinitionFile): Promise<Result> {
    if (file.content.length < LARGE_DEFINITION_BYTES) return this.here.parse(file);
    this.thread ??= this.start();
    return this.thread.parse(file);
  }

  ready(): Promise<void> {
    return this.thread?.ready() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.thread?.close() ?? Promise.resolve();
  }
}

class PoolParser<Result> implements Parser<Result> {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Waiter<Result>>();
  /** which files each thread holds, so that a thread that dies fails only its own */
  private readonly assigned = new Map<Worker, Set<number>>();
  private batch: Array<{ id: number; file: DefinitionFile }> = [];
  private nextId = 0;
  private nextWorker = 0;
  private drained: (() => void) | undefined;
  private roomWaiters: Array<() => void> = [];
  private closing = false;
  private readonly strings = new StringTable();

  constructor(
    readonly threads: number,
    private readonly options: ParseOptions,
    private readonly summaries = false,
    private readonly limits: ResourceLimits = WORKER_LIMITS,
  ) {
    this.workers = Array.from({ length: threads }, () => this.spawn());
  }

  parse(file: DefinitionFile): Promise<Result> {
    const id = this.nextId++;
    const entry = new Promise<Result>((resolve, reject) => this.pending.set(id, { resolve, reject, folder: file.folder, oid: file.oid }));
    this.batch.push({ id, file });
    // a full batch goes at once; a partial one goes when this turn of the event loop is done queueing
    if (this.batch.length >= BATCH) this.flush();
    else if (this.batch.length === 1) setImmediate(() => this.flush());
    return entry;
  }

  ready(): Promise<void> {
    if (this.pending.size < MAX_IN_FLIGHT) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.flush();
    if (this.pending.size) await new Promise<void>((resolve) => (this.drained = resolve));
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_PATH, { workerData: { options: this.options, summaries: this.summaries }, resourceLimits: this.limits });
    this.assigned.set(worker, new Set());
    worker.on('message', (message: Array<{ id: number; entry: ScanEntry }> | SummaryBatch) => {
      const mine = this.assigned.get(worker)!;
      const settle = (id: number, result: Result): void => {
        mine.delete(id);
        this.pending.get(id)?.resolve(result);
        this.pending.delete(id);
      };
      if (Array.isArray(message)) {
        for (const { id, entry } of message) settle(id, this.strings.shareStrings(entry) as Result);
      } else {
        // views of one buffer made here of the batch's lines: it lives until its last line is written. Each summary made
        // again here, so that it shares what summaries made in this thread share, and with the folder and oid strings
        // the listing holds (the thread's are copies: ~90 bytes a summary, 9 MB at 100,000 tools)
        const lines = Buffer.from(message.lines, 'latin1');
        let offset = 0;
        for (const { id, summary, length } of message.results) {
          const waiter = this.pending.get(id);
          if (waiter) Object.assign(summary, { folder: waiter.folder, oid: waiter.oid });
          settle(id, { summary: summaryOf(summary as unknown as ScanEntry), line: lines.subarray(offset, offset + length) } as Result);
          offset += length;
        }
      }
      if (this.pending.size === 0) this.drained?.();
      this.makeRoom();
    });
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => {
      if (!this.closing) this.lost(worker, new Error(`the parser thread exited with code ${code}`));
    });
    return worker;
  }

  // the files the thread held fail (the scanner reports each one); later batches go to a new thread
  private lost(worker: Worker, error: Error): void {
    const mine = this.assigned.get(worker);
    if (!mine) return;
    this.assigned.delete(worker);
    for (const id of mine) {
      this.pending.get(id)?.reject(error);
      this.pending.delete(id);
    }
    const slot = this.workers.indexOf(worker);
    if (slot >= 0 && !this.closing) this.workers[slot] = this.spawn();
    if (this.pending.size === 0) this.drained?.();
    this.makeRoom();
  }

  // readers waiting for room go on once the threads are half-way through what they hold
  private makeRoom(): void {
    if (this.pending.size > MAX_IN_FLIGHT / 2 || !this.roomWaiters.length) return;
    const waiting = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of waiting) resolve();
  }

  private flush(): void {
    if (!this.batch.length) return;
    const worker = this.workers[this.nextWorker++ % this.workers.length]!;
    for (const { id } of this.batch) this.assigned.get(worker)!.add(id);
    if (this.summaries) {
      // the contents copied into one buffer handed over: a clone of each file's view copied its whole backing store
      let total = 0;
      for (const { file } of this.batch) total += file.content.length;
      const bytes = new Uint8Array(total);
      let offset = 0;
      const files: FileBatch['files'] = this.batch.map(({ id, file }) => {
        bytes.set(file.content, offset);
        offset += file.content.length;
        return { id, ...(file.kind ? { kind: file.kind } : {}), path: file.path, folder: file.folder, oid: file.oid, length: file.content.length };
      });
      const message: FileBatch = { files, bytes: bytes.buffer };
      worker.postMessage(message, [bytes.buffer]);
    } else worker.postMessage(this.batch);
    this.batch = [];
  }
}
