import { letGo, runLettingGo, runToEnd, SLICE_MS, toolCount, toolsOf, type MatchResult, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { analysisSteps } from './analyze.js';
import { FITTED_DECISION, FITTED_RANKING } from './fitted-parameters.js';
import { loadTransliteration, warmUpTransliteration } from './suggestion.js';
import { createToolResolver, lookupTool, toolResolverSteps, type LookupResult, type ToolResolver } from './lookup.js';
import { calibrationBasisSteps, type CalibrationBasis } from './calibration-basis.js';
import { calibrate, calibrationSteps, type Calibration } from './calibration.js';
import { isChineseWord, lexiconFailed, lexiconSettled, loadLexicon } from './lexicon.js';
import type { MatchContext } from './context.js';
import {
  DEFAULT_LIMIT,
  EXPLAINED_TOOLS,
  explainIntent,
  matchIntent,
  type IntentEngine,
  type IntentExplanation,
} from './match-intent.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import { buildSearchIndex, buildSearchIndexSteps, isCurrent, type SearchIndex } from './search-index.js';
import { updateSearchIndex, updateSearchIndexSteps } from './update-search-index.js';
import type { KeptSearchIndex, SearchIndexFiles } from './search-index-file.js';
import type { Measured } from './search-index-layout.js';
import { toolVectorSteps } from './similarity.js';
import { createParamsValidator, type ParamsValidator } from './validate-params.js';
import { warmUpSteps } from './warm-up.js';
import { UnreadableList } from './kept-lists.js';
import { loadWordVectors } from './word-vector-file.js';

/** How to match an intent. */
export interface MatchIntentOptions {
  /** how many candidates at most: an integer from 1 to MAX_LIMIT (3, the default); anything else is a RangeError */
  limit?: number;
  /** what the caller knows about the situation: tools it expects, its group, its session's recent tools */
  context?: MatchContext;
}

/** Overrides of the measured parameters (for benchmarks and fitting), and the matcher this one succeeds. */
export interface MatcherOptions {
  ranking?: RankingParameters;
  decision?: DecisionModel;
  /**
   * The matcher of the previous index version: only the tools that are not the very same
   * `ToolDefinition` objects as in its index are analysed and indexed again, and the schemas it
   * compiled for the tools kept carry over. Its search structures are updated in place: its
   * `lookup` keeps serving its own index, but from now on its `matchIntent` and `explainIntent`
   * rebuild a private search index on first use (correct, but as slow as a full build). If the
   * previous matcher never built its search index, this one builds its own on first use.
   */
  previous?: Matcher;
  /** where search indexes are kept between runs: a matcher builds its own only when none is kept for its index, and keeps it */
  searchFiles?: SearchIndexFiles;
  /** the most tools for the vector stage to run (default and in production `MAX_VECTOR_STAGE_TOOLS`, 10,000; tests lower it) */
  vectorStageTools?: number;
}

/** Exact and intent matching over one index. */
export interface Matcher {
  /** the commit of the index this matcher serves */
  readonly commit: string;
  /** the index itself */
  readonly index: ToolIndex;
  /** `{tool, params}`: the tool by name or alias, and the params validated (defaults filled) */
  lookup(tool: string, params?: unknown): LookupResult;
  /** the tool a call of that name or alias runs, its params unchecked */
  resolve(tool: string): ToolDefinition | undefined;
  /** `{intent}`: one to `limit` candidates, best first, or `found: false`; never executes anything */
  matchIntent(intent: string, options?: MatchIntentOptions): MatchResult;
  /** the full ranking and decision behind `matchIntent`, for debugging and benchmarks */
  explainIntent(intent: string, context?: MatchContext): IntentExplanation;
  /**
   * Builds the intent search index now, which is otherwise built on the first intent (an exact call
   * never needs it: at 10,000 tools it takes seconds). Servers use `prepareLettingGo` once they listen.
   */
  prepare(): Matcher;
  /**
   * `prepare()` for servers and the CLI: when the registry's examples or aliases, or `intent`, have
   * Chinese words, the Chinese-English dictionary is read first (in a worker thread, while this thread
   * builds the search index), so that the calibration and the answers have their English senses.
   * Without it no answer waits for the dictionary: one made before it is read says so (`incomplete`).
   */
  ready(intent?: string): Promise<Matcher>;
  /**
   * `prepare()` a slice at a time, for a server that already answers calls by name: the search index kept on disk is
   * read without blocking and restored (its v8.deserialize of typed arrays is one short piece), one that must be built is built a few tools at a time,
   * and the confidence cut is measured a probe at a time. Answers are exactly `prepare()`'s. The first matcher a
   * process prepares so then asks itself requests made of the registry's words (`warmUpSteps`, 512 or 300 ms of CPU at
   * most, a slice at a time), so that a server's first requests do not wait for the code they run to be compiled.
   * The Chinese-English dictionary is waited for (as by `ready`) only where the confidence cut is measured here: one
   * kept with the search index needs nothing of it, and it is read once matching is ready. Once `signal` is aborted
   * the preparation stops at its next turn and rejects with the signal's reason (what it made stays usable).
   */
  prepareLettingGo(signal?: AbortSignal): Promise<Matcher>;
  /** the same index with other parameters, without rebuilding it (for fitting) */
  reconfigure(options: MatcherOptions): Matcher;
  /** keeps its search index in `searchFiles` if it was built or updated and no file holds it yet (servers, when they stop) */
  persist(): void;
}

/** What a successor matcher takes over from its predecessor. */
interface MatcherState {
  /** the search index, if it was built */
  built: () => SearchIndex | undefined;
  validator: ParamsValidator;
  /** what its calibration read of the tools, if it read them: a successor reads only the tools a rescan changed */
  basis: () => CalibrationBasis | undefined;
}

const states = new WeakMap<Matcher, MatcherState>();

// the compiled code a warm-up leaves is the process's, whichever matcher ran it: the first matcher prepared warms it up
let warmedUp = false;

/**
 * A matcher over `index`. Params schemas compile on first use; the search index is built on the
 * first intent (or `prepare()`), except that a previous matcher's built index is updated now for the
 * tools that changed, which costs milliseconds.
 */
export function createMatcher(index: ToolIndex, options: MatcherOptions = {}): Matcher {
  const previous = options.previous === undefined ? undefined : states.get(options.previous);
  if (previous === undefined) return assemble(index, undefined, createParamsValidator(), options);
  const built = previous.built();
  const searchIndex = built === undefined ? undefined : updateSearchIndex(built, toolsOf(index));
  return assemble(index, searchIndex, previous.validator.next(toolsOf(index)), options, { previousBasis: previous.basis() });
}

/**
 * `createMatcher` for a server's rescan, where every request waits for a stall: a previous matcher's built
 * search index is updated (its reading part; the shared structures change in one go), the alias table made and
 * the confidence cut measured, each a slice at a time, before the matcher is returned, so the first request
 * after the swap pays for none of it. It answers exactly as `createMatcher`'s would.
 */
export async function createMatcherLettingGo(index: ToolIndex, options: MatcherOptions = {}): Promise<Matcher> {
  const previous = options.previous === undefined ? undefined : states.get(options.previous);
  const built = previous?.built();
  if (previous === undefined || built === undefined) return createMatcher(index, options);
  const searchIndex = await runLettingGo(updateSearchIndexSteps(built, toolsOf(index)));
  await letGo();
  const resolver = await runLettingGo(toolResolverSteps(index));
  const ranking = options.ranking ?? FITTED_RANKING;
  const decision = options.decision ?? FITTED_DECISION;
  // a registry with Chinese examples is calibrated with their senses: the dictionary is read off this thread
  // what the calibration reads of each tool: the predecessor's for the tools the rescan did not change (issue #18: read
  // from every tool, each made from the scan cache, ~2 s of CPU at 100,000 tools), the changed ones read
  const basis = await runLettingGo(calibrationBasisSteps(toolsOf(index), previous.basis()));
  const chineseProbes = lexiconSettled() ? undefined : basis.chineseTools > 0;
  if (chineseProbes === true) await loadLexicon().catch(() => undefined);
  const calibration = await runLettingGo(calibrationSteps(searchIndex, ranking, decision, basis));
  // the changed tools' vectors (the others' are taken over), so the first request after the swap sums none
  await runLettingGo(toolVectorSteps(searchIndex));
  // the calibration holds only while no later update has changed the shared structures it read
  const measured = isCurrent(searchIndex) ? { of: searchIndex, value: calibration } : undefined;
  return assemble(index, searchIndex, previous.validator.next(toolsOf(index)), options, { resolver, basis, ...(measured ? { calibration: measured } : {}), ...(chineseProbes === undefined ? {} : { chineseProbes }) });
}

/** What `createMatcherLettingGo` made ahead of the first request. */
interface Prepared {
  resolver?: ToolResolver;
  calibration?: { of: SearchIndex; value: Calibration };
  chineseProbes?: boolean;
  /** what the calibration read of the tools */
  basis?: CalibrationBasis;
  /** the predecessor's, for the tools a rescan did not change */
  previousBasis?: CalibrationBasis | undefined;
}

/** The parameters a calibration kept beside a search index was measured with: one of other parameters is not used. */
const parametersOf = (ranking: RankingParameters, decision: DecisionModel): string => JSON.stringify([ranking, decision]);

function assemble(index: ToolIndex, searchIndex: SearchIndex | undefined, validator: ParamsValidator, options: MatcherOptions, prepared: Prepared = {}): Matcher {
  let search = searchIndex;
  const ranking = options.ranking ?? FITTED_RANKING;
  const decision = options.decision ?? FITTED_DECISION;
  // built on first use; rebuilt as a private copy if a successor has since updated the shared structures
  let calibration: { of: SearchIndex; value: Calibration } | undefined = prepared.calibration;
  // whether the tools' examples or aliases have Chinese words, once known (from the kept file, or read from the tools)
  let chineseProbes = prepared.chineseProbes;
  // what the calibration reads of the tools, made once (from the predecessor's where it has one)
  let basis = prepared.basis;
  let previousBasis = prepared.previousBasis;
  const basisSteps = function* (): Generator<void, CalibrationBasis, void> {
    if (basis === undefined) {
      const made = yield* calibrationBasisSteps(toolsOf(index), previousBasis);
      basis ??= made;
      previousBasis = undefined;
    }
    return basis;
  };
  // built here and not kept yet: kept once its calibration is measured, which a restart then need not measure again
  let unkept: SearchIndex | undefined;
  const parameters = parametersOf(ranking, decision);
  const adopt = (kept: KeptSearchIndex): void => {
    search = kept.search;
    if (kept.updated) {
      // the older scan's index updated with the tools changed since: measured over these tools afresh, reading only
      // the changed ones (the older scan's basis taken over), then kept
      unkept = kept.search;
      if (basis === undefined && kept.basis !== undefined) previousBasis = kept.basis;
      return;
    }
    if (basis === undefined && kept.basis !== undefined) basis = kept.basis;
    chineseProbes = kept.measured.chineseProbes;
    const measured = kept.measured.calibration;
    if (measured?.parameters === parameters) calibration = { of: kept.search, value: measured.value };
  };
  const measuredOver = (built: SearchIndex): Measured => {
    const measured: Measured = chineseProbes === undefined ? {} : { chineseProbes };
    // what the calibration read of each tool: the first rescan after the next start then reads only the tools it changes
    if (basis !== undefined && basis.texts.length === toolCount(index)) measured.basis = { texts: basis.texts, chinese: basis.chinese };
    // a cut measured without the dictionary's senses (not read yet, or not readable here) is measured again by the next start
    if (calibration?.of === built && calibration.value.provisional !== true && !lexiconFailed()) measured.calibration = { parameters, value: calibration.value };
    return measured;
  };
  const keep = (built: SearchIndex): void => options.searchFiles?.write(index, built, measuredOver(built));
  const readKept = (): void => {
    const kept = options.searchFiles?.read(index);
    if (kept !== undefined) adopt(kept);
  };
  const searchIndexNow = (): SearchIndex => {
    if (search === undefined) {
      // kept from an earlier run over the same scan, or built (seconds at 10,000 tools) and kept for the next
      readKept();
      if (search === undefined) search = unkept = buildSearchIndex(toolsOf(index));
    } else if (!isCurrent(search)) search = buildSearchIndex(toolsOf(index));
    return search;
  };
  const engine = (): IntentEngine => {
    const current = searchIndexNow();
    // worked out once per search index, from the registry's own examples and aliases (again once the
    // dictionary is read, if Chinese probes were measured without it: only where `ready` was not awaited)
    if (calibration?.of !== current || (calibration.value.provisional && lexiconSettled())) {
      calibration = { of: current, value: calibrate(current, ranking, decision, runToEnd(basisSteps())) };
    }
    if (unkept === current) {
      unkept = undefined;
      keep(current);
    }
    return { index: current, ranking, decision, calibration: calibration.value, ...(options.vectorStageTools === undefined ? {} : { vectorStageTools: options.vectorStageTools }) };
  };
  // whether the dictionary is to be read before matching is ready: the tools' examples or aliases have Chinese words
  const chineseProbesSteps = function* (): Generator<void, boolean, void> {
    if (lexiconSettled()) return false;
    chineseProbes ??= (yield* basisSteps()).chineseTools > 0;
    return chineseProbes;
  };
  const resolver = prepared.resolver ?? createToolResolver(index);
  const matcher: Matcher = {
    commit: index.commit,
    index,
    lookup: (tool, params) => lookupTool(index, resolver, validator, tool, params),
    resolve: (tool) => resolver.resolve(tool),
    matchIntent: (intent, { limit = DEFAULT_LIMIT, context } = {}) => builtAgainIfRefused(() => matchIntent(engine(), intent, limit, context)),
    explainIntent: (intent, context) => builtAgainIfRefused(() => explainIntent(engine(), intent, EXPLAINED_TOOLS, context)),
    prepare: () => {
      builtAgainIfRefused(engine);
      warmUpTransliteration();
      return matcher;
    },
    ready: async (intent) => {
      // the kept file first: it says whether the tools have Chinese probes, which would be read from every tool
      if (search === undefined) readKept();
      const chinese = !lexiconSettled() && ((intent !== undefined && isChineseWord(intent)) || runToEnd(chineseProbesSteps()));
      const reading = chinese ? loadLexicon().catch(() => undefined) : undefined;
      const transliteration = loadTransliteration();
      searchIndexNow();
      await Promise.all([reading, transliteration]);
      builtAgainIfRefused(engine);
      warmUpTransliteration();
      return matcher;
    },
    prepareLettingGo: async (signal) => {
      try {
        return await prepareLettingGo(signal);
      } catch (error) {
        if (!(error instanceof UnreadableList)) throw error;
        forgetRefused();
        return await prepareLettingGo(signal);
      }
    },
    reconfigure: (changed) => assemble(index, engine().index, validator, changed),
    persist: () => {
      if (search !== undefined && isCurrent(search)) keep(search);
    },
  };
  // a kept index file whose list a request read named no tool was removed (`UnreadableList`): the index is built again
  // as a start without the file builds it, and the request asked again of it
  const forgetRefused = (): void => {
    search = undefined;
    unkept = undefined;
    calibration = undefined;
  };
  const builtAgainIfRefused = <T>(answer: () => T): T => {
    try {
      return answer();
    } catch (error) {
      if (!(error instanceof UnreadableList)) throw error;
      forgetRefused();
      return answer();
    }
  };
  async function prepareLettingGo(signal: AbortSignal | undefined): Promise<Matcher> {
    // each piece under `signal`: a server that closes (its client gone) stops the preparation at its next turn
    const go = <T>(steps: Generator<unknown, T, void>): Promise<T> => runLettingGo(steps, SLICE_MS, signal);
    const turn = async (): Promise<void> => {
      await letGo();
      signal?.throwIfAborted();
    };
    // the files read in libuv's threads are asked for first (the kept index, the word vectors), and this thread
    // makes meanwhile what needs neither: read one after the other, with this work between, they left the main
    // thread idle ~120 ms of a 100,000-tool start, waiting for each read in turn (issue #18)
    const keptReading = search === undefined ? options.searchFiles?.readLettingGo(index) : undefined;
    // a stop before it is awaited leaves its failure to nobody
    keptReading?.catch(() => undefined);
    const vectorsReading = warmedUp ? undefined : loadWordVectors();
    await loadTransliteration();
    await turn();
    // the stop lists and the word breaker a step each, before a kept index's update analyses its changed tools
    await go(analysisSteps());
    // the kept file first: it holds the calibration and says whether the tools have Chinese probes, which would be
    // read from every tool (at 100,000 tools each made from the scan cache: ~1.5 s of CPU, ~200 MB of heap)
    if (search === undefined) {
      const kept = await keptReading;
      signal?.throwIfAborted();
      // a synchronous first intent may have built it meanwhile: that one stands
      if (search === undefined && kept !== undefined) adopt(kept);
    }
    // as ready(): a registry with Chinese examples is calibrated with their senses, the dictionary read off this thread
    // meanwhile. A calibration kept with the index needs nothing of it (issue #18: at 100,000 tools a restart waited
    // ~0.4 s for the worker): matching is ready without it, and it is read once the warm-up is done (the worker would
    // take the warm-up's second core and add its peak to the warm-up's). Meanwhile a Chinese request is answered
    // `incomplete`, as any before the dictionary is read.
    const chinese = await go(chineseProbesSteps());
    const dictionary = (): Promise<void> | undefined => (chinese ? loadLexicon().catch(() => undefined) : undefined);
    if (search === undefined || calibration?.of !== search) void dictionary();
    if (search === undefined) {
      const built = await go(buildSearchIndexSteps(toolsOf(index)));
      if (search === undefined) search = unkept = built;
    }
    const current = search;
    if (current !== undefined && isCurrent(current) && calibration?.of !== current) {
      await dictionary();
      signal?.throwIfAborted();
      const value = await go(calibrationSteps(current, ranking, decision, await go(basisSteps())));
      if (search === current && isCurrent(current) && calibration?.of !== current) calibration = { of: current, value };
    }
    // one built or updated here is kept a piece at a time, other work let run between pieces (issue #18: written in
    // one piece, a 100,000-tool file held the event loop ~0.3-0.8 s); given up if a successor updates it meanwhile
    if (unkept !== undefined && unkept === search && calibration?.of === unkept && isCurrent(unkept)) {
      const built = unkept;
      unkept = undefined;
      // a stop gives the write up: the closing server's persist() keeps it in one piece, without the turns between
      await options.searchFiles?.writeLettingGo(index, built, measuredOver(built), () => isCurrent(built) && signal?.aborted !== true);
      signal?.throwIfAborted();
    }
    // anything left (a search index a successor updated since) is done as prepare() does it
    await turn();
    engine();
    await turn();
    // reading the transliteration tables in is a piece of its own (~20 ms the first time), before the warm-up's
    warmUpTransliteration();
    // every tool's vector for the re-rank by meaning, before the warm-up (whose requests then run the re-rank as the
    // first agents' will) and the first request: made as requests bring tools up, they were most of the first pass's
    // cost after a start (issue #18)
    await go(toolVectorSteps(engine().index));
    if (!warmedUp) {
      warmedUp = true;
      // the word vectors' file, which the warm-up's first request reads, read off this thread (its decode a turn of
      // its own): read and decoded in one turn it held the event loop ~50-100 ms of CPU at 100,000 tools (issue #18)
      await (vectorsReading ?? loadWordVectors());
      signal?.throwIfAborted();
      await turn();
      await go(warmUpSteps(engine()));
    }
    void dictionary();
    return matcher;
  }
  states.set(matcher, { built: () => search, validator, basis: () => basis });
  return matcher;
}
