import type { Logger } from 'pino';
import { runLettingGo, toolCount } from '../../core/index.js';
import type { Matcher } from '../../matcher/index.js';
import type { Registry } from './registry-swap.js';

/** How long a match waits, by default, for intent matching being prepared after a start. */
export const MATCH_WAIT_MS = 20_000;

// how long a stop waits for the preparations under way to end (each ends at its next turn: a slice of work, or a file
// read in libuv's threads); past it they are left, and say nothing more
const STOP_WAIT_MS = 2000;

/** A match asked while the search index is still being read or built, and not ready within the wait. */
export class SearchIndexLoadingError extends Error {
  readonly code = 'SEARCH_INDEX_LOADING';
  /** when to ask again, in seconds */
  readonly retryAfterSeconds = 1;
  constructor(tools: number) {
    super(`intent matching is not ready yet: the search index over ${tools} tools is still being loaded after the start; ask again in a second (GET /healthz says matching: ready), or call the tool by name, which works now`);
  }
}

/**
 * Whether intent matching is ready on each registry's matcher: prepares it (reads its search index kept on disk,
 * or builds it, then measures its confidence cut) once per matcher, says `ready`, `loading` or `failed`, and lets
 * a match wait for it a bounded time.
 */
export class MatchingReadiness {
  /** intent matching being prepared, per matcher, and the matchers that are ready */
  readonly #preparing = new WeakMap<Matcher, Promise<Matcher>>();
  readonly #prepared = new WeakSet<Matcher>();
  #failure: string | undefined;
  /** aborted by `stop`: every preparation ends at its next turn (review R, R15) */
  readonly #stopping = new AbortController();
  /** the preparations not yet ended, each settling once it has; a stop waits for them */
  readonly #running = new Set<Promise<void>>();
  /** set once a stop has waited: a preparation that ends later says nothing after the server said it stopped (memz23) */
  #quiet = false;
  /** what else a first match would meet compiled (a server's body checkers), and its run once started */
  #alongside: (() => Generator<void, void, void>) | undefined;
  #alongsideRun: Promise<void> | undefined;

  constructor(
    /** the registry calls start on now */
    private readonly current: () => Registry,
    private readonly logger: Logger | undefined,
  ) {}

  /** Prepares intent matching over `matcher`, a slice at a time, once; resolves with the matcher once it is ready. */
  prepare(matcher: Matcher): Promise<Matcher> {
    let pending = this.#preparing.get(matcher);
    if (pending === undefined) {
      const started = performance.now();
      pending = Promise.all([matcher.prepareLettingGo(this.#stopping.signal), this.#runAlongside()]).then(
        ([prepared]) => {
          this.#prepared.add(prepared);
          this.#failure = undefined;
          if (!this.#quiet) this.logger?.info({ commit: matcher.commit, tools: toolCount(matcher.index), ms: Math.round(performance.now() - started) }, 'intent matching ready');
          return prepared;
        },
        (error: unknown) => {
          // stopped, not failed: the server is closing
          if (this.#stopping.signal.aborted) {
            if (!this.#quiet) this.logger?.info({ commit: matcher.commit }, 'intent matching not prepared: the server is closing');
            throw error;
          }
          // the next match tries again
          this.#preparing.delete(matcher);
          this.#failure = (error as Error).message;
          this.logger?.error({ err: this.#failure }, 'could not prepare intent matching');
          throw error;
        },
      );
      this.#preparing.set(matcher, pending);
      this.#hold(pending);
    }
    return pending;
  }

  /**
   * Steps a first match would otherwise run (a server's body checkers, compiled on first use), run once beside the
   * first preparation, in its idle turns (the kept index is read in libuv's threads meanwhile); matching is said ready
   * only once they are done. A failure is left to the request that meets it.
   */
  alsoBeforeReady(steps: () => Generator<void, void, void>): void {
    this.#alongside = steps;
  }

  #runAlongside(): Promise<void> | undefined {
    if (this.#alongside === undefined) return undefined;
    if (this.#alongsideRun !== undefined) return this.#alongsideRun;
    this.#alongsideRun = runLettingGo(this.#alongside(), undefined, this.#stopping.signal).catch((error: unknown) => {
      if (!this.#stopping.signal.aborted) this.logger?.warn({ err: (error as Error).message }, 'could not compile the match requests\' checks ahead of the first match');
    });
    this.#hold(this.#alongsideRun);
    return this.#alongsideRun;
  }

  #hold(work: Promise<unknown>): void {
    const ended = work.then(() => undefined, () => undefined);
    this.#running.add(ended);
    void ended.then(() => this.#running.delete(ended));
  }

  /**
   * Stops every preparation at its next turn, and any later one at once: a server closing (an MCP client gone before
   * matching was ready) spent seconds of CPU at 100,000 tools preparing matching for nobody before it could exit.
   * Resolves once they have ended (at most 2 s): a server closes after them, so that their last line ("intent matching
   * not prepared: the server is closing") is not logged after "gateway stopped" (memz23). One that has not ended by
   * then says nothing more.
   */
  async stop(): Promise<void> {
    this.#stopping.abort(new Error('intent matching stopped: the server is closing'));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
    await Promise.race([Promise.all(this.#running), bound]);
    clearTimeout(timer);
    this.#quiet = true;
  }

  /** Whether preparing `matcher` was ever started (then a rescan's next matcher is prepared before it is swapped in). */
  started(matcher: Matcher): boolean {
    return this.#preparing.has(matcher);
  }

  /** Intent matching over the current registry: `ready`, `loading` (its search index is read or built) or `failed` (the next match tries again). */
  get state(): 'ready' | 'loading' | 'failed' {
    const { matcher } = this.current();
    if (this.#prepared.has(matcher)) return 'ready';
    return this.#failure !== undefined && !this.#preparing.has(matcher) ? 'failed' : 'loading';
  }

  /** The registry to match on once its matcher is ready, waiting at most `waitMs`; `SearchIndexLoadingError` after that. */
  async ready(waitMs: number): Promise<Registry> {
    const registry = this.current();
    if (this.#prepared.has(registry.matcher)) return registry;
    const ready = this.prepare(registry.matcher);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), waitMs);
    });
    try {
      const first = await Promise.race([ready, timedOut]);
      if (first === 'timeout') throw new SearchIndexLoadingError(toolCount(registry.index));
      return registry;
    } finally {
      clearTimeout(timer);
    }
  }
}
