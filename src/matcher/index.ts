// The matcher: exact lookup with params validation, intent search, and the found:false decision.
export {
  createMatcher,
  createMatcherLettingGo,
  type Matcher,
  type MatcherOptions,
  type MatchIntentOptions,
} from './create-matcher.js';
export type { LookupResult } from './lookup.js';
export { createToolResolver, keptName, LIST_THE_TOOLS } from './lookup.js';
export { searchIndexFiles, type SearchIndexFiles } from './search-index-file.js';
export { createParamsValidator, type ParamProblem, type ParamsValidator } from './validate-params.js';
export { PARAMS_FORMATS, type UnusableSchema } from './unusable-schema.js';
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
export { CONFIDENCE_FEATURES, DECISION_FEATURES, NOTHING_MATCHES } from './decision.js';
export type { Calibration } from './calibration.js';
export type { MatchContext } from './context.js';
export { SEARCH_FIELDS, type SearchField } from './search-document.js';
export { formatMatchResult } from './format-match-result.js';
export { compactSchema } from './compact-schema.js';
export { toolSlug, missingToolSuggestion } from './suggestion.js';
export { analyze } from './analyze.js';
export { glossesOf, lexiconSettled, loadLexicon } from './lexicon.js';
export { LEXICON_LOADING } from './match-intent.js';
export { matchWithModel } from './match-with-model.js';
export { brokenMatches, brokenToolSuggestion, MAX_BROKEN_MATCHES } from './broken-matches.js';
export {
  checkNames,
  createModelStage,
  type ModelAnswer,
  type ModelAsker,
  type ModelStage,
  type ModelStageHooks,
  type ModelStageOptions,
} from './model-stage.js';
export { listForModel, type ModelListing } from './model-listing.js';
export {
  suggestExamples,
  type ExampleSuggestion,
  type MissedAs,
  type SuggestOptions,
  type SuggestedText,
} from './suggest-examples.js';
// the linear pattern engine and the params work budget: the policies' `regex` conditions run on them too
export { linearPattern, type LinearPattern } from './linear-regexp.js';
export { charge, metered, ParamsTooCostly } from './params-work.js';
export { intentOverlaps, overlapTextCount, MAX_OVERLAP_TEXTS, type IntentOverlap } from './intent-overlap.js';
