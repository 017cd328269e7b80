// The matcher: exact lookup with params validation, intent search, and the found:false decision.
export {
  createMatcher,
  type Matcher,
  type MatcherOptions,
  type MatchIntentOptions,
} from './create-matcher.js';
export type { LookupResult } from './lookup.js';
export type { ParamProblem } from './validate-params.js';
export {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  type ExplainedTool,
  type IntentExplanation,
} from './match-intent.js';
export type { ToolFeatures } from './rank.js';
export type {
  DecisionFeature,
  DecisionModel,
  RankingParameters,
  RerankWeights,
} from './ranking-parameters.js';
export { FITTED_DECISION, FITTED_RANKING } from './fitted-parameters.js';
export { DECISION_FEATURES } from './decision.js';
export { SEARCH_FIELDS, type SearchField } from './search-document.js';
export { formatMatchResult } from './format-match-result.js';
export { compactSchema } from './compact-schema.js';
export { toolSlug, missingToolSuggestion } from './suggestion.js';
export { analyze } from './analyze.js';
