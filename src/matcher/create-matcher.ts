import type { MatchResult, ToolIndex } from '../core/index.js';
import { FITTED_DECISION, FITTED_RANKING } from './fitted-parameters.js';
import { createToolResolver, lookupTool, type LookupResult } from './lookup.js';
import { DEFAULT_LIMIT, explainIntent, matchIntent, type IntentExplanation } from './match-intent.js';
import type { DecisionModel, RankingParameters } from './ranking-parameters.js';
import { buildSearchIndex, type SearchIndex } from './search-index.js';
import { createParamsValidator } from './validate-params.js';

/** How to match an intent. */
export interface MatchIntentOptions {
  /** how many candidates at most (default 3, at most 10) */
  limit?: number;
  /** what the caller knows about the situation; accepted for the spec's call shape, not used for ranking */
  context?: Record<string, unknown>;
}

/** Overrides of the measured parameters, for benchmarks and fitting. */
export interface MatcherOptions {
  ranking?: RankingParameters;
  decision?: DecisionModel;
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

/** Builds the search index for `index` once; params schemas compile on first use. */
export function createMatcher(index: ToolIndex, options: MatcherOptions = {}): Matcher {
  return assemble(index, buildSearchIndex(index.tools), options);
}

function assemble(index: ToolIndex, searchIndex: SearchIndex, options: MatcherOptions): Matcher {
  const engine = {
    index: searchIndex,
    ranking: options.ranking ?? FITTED_RANKING,
    decision: options.decision ?? FITTED_DECISION,
  };
  const resolver = createToolResolver(index);
  const validator = createParamsValidator();
  return {
    commit: index.commit,
    lookup: (tool, params) => lookupTool(index, resolver, validator, tool, params),
    matchIntent: (intent, { limit = DEFAULT_LIMIT } = {}) => matchIntent(engine, intent, limit),
    explainIntent: (intent) => explainIntent(engine, intent),
    reconfigure: (changed) => assemble(index, searchIndex, changed),
  };
}
