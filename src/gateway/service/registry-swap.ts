import type { Logger } from 'pino';
import { byPlace, filesWithErrors, formatDiagnostic, removedTools, toolCount, type RemovedTools, type ToolIndex } from '../../core/index.js';
import { createMatcher, createMatcherLettingGo, type Matcher, type SearchIndexFiles } from '../../matcher/index.js';
import type { PushHint, Scanner } from '../../scanner/index.js';

/** One index and the matcher built over it: swapped together, so a call never mixes two commits. */
export interface Registry {
  index: ToolIndex;
  matcher: Matcher;
  /** the tools recent rescans removed, so a call of one is told it went, not to write it (review userZ, Z3) */
  removed?: RemovedTools;
}

/** What a rescan found. */
export interface RescanResult {
  previous: string;
  commit: string;
  changed: boolean;
  index: ToolIndex;
}

// the errors a swap's warning quotes, so that a push breaking thousands of files does not write megabytes of log
const LOGGED_ERRORS = 50;

/**
 * The registry calls start on, and its replacement: rescans one after another, each new commit's matcher
 * (and whatever `beforeSwap` hooks prepare, such as the MCP catalogue) built a slice at a time, then swapped in at once.
 */
export class RegistrySwap {
  #current: Registry;
  // at most one rescan runs and one waits: every request made while one waits joins it
  #running: Promise<RescanResult> | undefined;
  #pending: { pushed: PushHint | undefined; result: Promise<RescanResult> } | undefined;
  #lastScanError: { message: string; at: string } | undefined;
  readonly #listeners = new Set<(registry: Registry) => void>();
  readonly #preparers = new Set<(registry: Registry, previous: Registry) => Promise<void>>();

  constructor(
    private readonly scanner: Scanner,
    index: ToolIndex,
    /** where each index's search index is kept between runs */
    private readonly searchFiles: SearchIndexFiles,
    private readonly logger: Logger | undefined,
    /** told of every rescan: what it found, or why it failed */
    private readonly scanned: (result: RescanResult | { error: Error }) => void,
  ) {
    this.#current = { index, matcher: createMatcher(index, { searchFiles }) };
  }

  /** The registry calls start on now. */
  get current(): Registry {
    return this.#current;
  }

  /** Whether a rescan waits to start: a request made now joins it, and costs no scan of its own. */
  get queued(): boolean {
    return this.#pending !== undefined;
  }

  /** The last rescan's failure, if the index is being served in spite of it. */
  get scanError(): { message: string; at: string } | undefined {
    return this.#lastScanError;
  }

  /**
   * Scans again; a new commit swaps in a new index and matcher atomically. Calls in flight keep theirs.
   * Rescans run one after another, each to the end; their work is done a slice at a time, so requests are
   * answered meanwhile from the registry being replaced. Each request is answered by the first rescan that starts
   * after it: requests made while one runs share the next, so N requests cost at most two scans, not N.
   */
  rescan(pushed?: PushHint): Promise<RescanResult> {
    if (this.#pending) {
      // the newest push's hint is the one the shared rescan looks for
      if (pushed) this.#pending.pushed = pushed;
      return this.#pending.result;
    }
    if (!this.#running) return this.#start(pushed);
    const pending: { pushed: PushHint | undefined; result: Promise<RescanResult> } = { pushed, result: Promise.resolve() as never };
    const settled = (): void => undefined;
    pending.result = this.#running.then(settled, settled).then(() => {
      this.#pending = undefined;
      return this.#start(pending.pushed);
    });
    this.#pending = pending;
    return pending.result;
  }

  #start(pushed: PushHint | undefined): Promise<RescanResult> {
    const run = this.#rescanNow(pushed);
    this.#running = run;
    const done = (): void => {
      if (this.#running === run) this.#running = undefined;
    };
    run.then(done, done);
    return run;
  }

  /**
   * Runs `prepare` on every new registry before it is swapped in (work a request would otherwise do on first
   * use, done a slice at a time ahead of it); returns the unsubscribe function.
   */
  beforeSwap(prepare: (registry: Registry, previous: Registry) => Promise<void>): () => void {
    this.#preparers.add(prepare);
    return () => this.#preparers.delete(prepare);
  }

  /** Calls `listener` after every swap to a new commit; returns the unsubscribe function. */
  onIndexChange(listener: (registry: Registry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #rescanNow(pushed: PushHint | undefined): Promise<RescanResult> {
    const previous = this.#current;
    let index: ToolIndex;
    try {
      index = await this.scanner.scan(pushed);
    } catch (error) {
      this.#lastScanError = { message: (error as Error).message, at: new Date().toISOString() };
      this.logger?.warn({ err: this.#lastScanError.message }, 'rescan failed; serving the last good index');
      this.scanned({ error: error as Error });
      throw error;
    }
    this.#lastScanError = undefined;
    const changed = index.commit !== previous.index.commit;
    if (changed) {
      const matcher = await createMatcherLettingGo(index, { previous: previous.matcher, searchFiles: this.searchFiles });
      const next = { index, matcher, removed: removedTools(previous.removed, previous.index, index) };
      for (const prepare of this.#preparers) await prepare(next, previous);
      this.#current = next;
      this.logger?.info({ previous: previous.index.commit, commit: index.commit, tools: toolCount(index), errors: index.errors.length }, 'index swapped');
      if (index.errors.length > 0) this.#warnOfErrors(previous.index, index);
      for (const listener of this.#listeners) listener(this.#current);
    } else this.#current = { index, matcher: previous.matcher, ...(previous.removed ? { removed: previous.removed } : {}) };
    const result = { previous: previous.index.commit, commit: index.commit, changed, index };
    this.scanned(result);
    return result;
  }

  // a push that breaks definitions is said at warn, naming the files, as the start does: an operator alerting on warn
  // would otherwise never hear that a tool agents were using stopped being served (review userZ4, F5). The log is the
  // operator's: file:line:col and the validator's words, as `hldp validate` prints them
  #warnOfErrors(previous: ToolIndex, index: ToolIndex): void {
    const { dropped, partial } = filesWithErrors(index);
    const before = new Set(previous.errors.map((error) => error.file));
    const newly = [...new Set(index.errors.map((error) => error.file))].filter((file) => !before.has(file));
    // in the order hldp validate, the start and the API give them: each file's in the order of its lines (review userZ10, U10-4)
    const errors = [...index.errors].sort(byPlace).slice(0, LOGGED_ERRORS).map(formatDiagnostic);
    if (index.errors.length > LOGGED_ERRORS) errors.push(`(and ${index.errors.length - LOGGED_ERRORS} more: hldp validate, or GET /v1/tools as an admin)`);
    this.logger?.warn({ commit: index.commit, dropped, partial, newly_broken: newly, errors }, `definitions with errors at ${index.commit.slice(0, 12)}: ${dropped.length} dropped (not served), ${partial.length} served in part`);
  }
}
