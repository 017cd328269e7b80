import type { MatchResult, ToolIndex } from '../core/index.js';
import { FITTED_DECISION, FITTED_RANKING } from './fitted-parameters.js';
import { createToolResolver, lookupTool, type LookupResult } from './lookup.js';
import {
  DEFAULT_LIMIT,
  explainIntent,
  matchIntent,
  type IntentEngine,
  type IntentExplanation,
} from './match-intent.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import { buildSearchIndex, isCurrent, updateSearchIndex, type SearchIndex } from './search-index.js';
import { createParamsValidator, type ParamsValidator } from './validate-params.js';

/** How to match an intent. */
export interface MatchIntentOptions {
  /** how many candidates at most (default 3, at most 10) */
  limit?: number;
  /** what the caller knows about the situation; accepted for the spec's call shape, not used for ranking */
  context?: Record<string, unknown>;
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
   * rebuild a private search index on first use (correct, but as slow as a full build).
   */
  previous?: Matcher;
}

/** Exact and intent matching over one index. */
export interface Matcher {
  /** the commit of the index this matcher serves */
  readonly commit: string;
  /** `{tool, params}`: the tool by name or alias, and the params validated (defaults filled) */
  lookup(tool: string, params?: unknown): LookupResult;
  /** `{intent}`: one to `limit` candidates, best first, or `found: false`; never executes anything */
  matchIntent(intent: string, options?: MatchIntentOptions): MatchResult;
  /** the full ranking and decision behind `matchIntent`, for debugging and benchmarks */
  explainIntent(intent: string): IntentExplanation;
  /** the same index with other parameters, without rebuilding it (for fitting) */
  reconfigure(options: MatcherOptions): Matcher;
}

/** What a successor matcher takes over from its predecessor. */
interface MatcherState {
  searchIndex: () => SearchIndex;
  validator: ParamsValidator;
}

const states = new WeakMap<Matcher, MatcherState>();

/**
 * Builds the search index for `index` (or updates the one of `options.previous`); params schemas
 * compile on first use.
 */
export function createMatcher(index: ToolIndex, options: MatcherOptions = {}): Matcher {
  const previous = options.previous === undefined ? undefined : states.get(options.previous);
  if (previous === undefined) return assemble(index, buildSearchIndex(index.tools), createParamsValidator(), options);
  const searchIndex = updateSearchIndex(previous.searchIndex(), index.tools);
  return assemble(index, searchIndex, previous.validator.next(index.tools), options);
}

function assemble(index: ToolIndex, searchIndex: SearchIndex, validator: ParamsValidator, options: MatcherOptions): Matcher {
  const engine: IntentEngine = {
    index: searchIndex,
    ranking: options.ranking ?? FITTED_RANKING,
    decision: options.decision ?? FITTED_DECISION,
  };
  // a successor updated the shared search structures: this matcher searches a private copy of its own
  const current = (): IntentEngine => {
    if (!isCurrent(engine.index)) engine.index = buildSearchIndex(index.tools);
    return engine;
  };
  const resolver = createToolResolver(index);
  const matcher: Matcher = {
    commit: index.commit,
    lookup: (tool, params) => lookupTool(index, resolver, validator, tool, params),
    matchIntent: (intent, { limit = DEFAULT_LIMIT } = {}) => matchIntent(current(), intent, limit),
    explainIntent: (intent) => explainIntent(current(), intent),
    reconfigure: (changed) => assemble(index, engine.index, validator, changed),
  };
  states.set(matcher, { searchIndex: () => engine.index, validator });
  return matcher;
}
