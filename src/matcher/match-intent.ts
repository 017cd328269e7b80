import type { Candidate, MatchResult, NearMiss, ToolDefinition } from '../core/index.js';
import { decisionFeatures, fitProbability } from './decision.js';
import { matchedFields } from './features.js';
import { rankTools, type QueryWord, type RankedTool, type ToolFeatures } from './rank.js';
import type { DecisionFeature, DecisionModel, RankingParameters } from './ranking-parameters.js';
import type { SearchIndex } from './search-index.js';
import { missingToolSuggestion } from './suggestion.js';

/** Candidates an intent yields by default; the spec asks for one to three. */
export const DEFAULT_LIMIT = 3;
/** The most candidates a caller may ask for. */
export const MAX_LIMIT = 10;

// a found: false answer names at most this many weakly related tools, never the catalogue
const MAX_NEAR_MISSES = 3;

/** One ranked tool with the evidence behind its place. */
export interface ExplainedTool {
  tool: ToolDefinition;
  score: number;
  /** the decision model's probability that this tool fits the request */
  probability: number;
  features: ToolFeatures;
  /** which fields matched which request words, e.g. `intent: 提交, 记录` */
  matched: string[];
}

/** The reasoning behind an intent's answer: the best-ranked tools (at most `MAX_LIMIT`) and the decision. */
export interface IntentExplanation {
  found: boolean;
  /** what the decision saw of the best tool (all zero when nothing matched) */
  decision: Record<DecisionFeature, number>;
  ranked: ExplainedTool[];
}

/** The engine an intent runs through: one index, its ranking parameters and its decision model. */
export interface IntentEngine {
  index: SearchIndex;
  ranking: RankingParameters;
  decision: DecisionModel;
}

/** Ranks the tools for an intent and decides whether the best one fits; explains the best `count` of them. */
export function explainIntent(engine: IntentEngine, intent: string, count: number = MAX_LIMIT): IntentExplanation {
  const { words, ranked } = rankTools(engine.index, engine.ranking, intent);
  // evidence is gathered only for what an answer can show
  const explained = ranked.slice(0, count).map((entry, position) => explain(engine, words, ranked, entry, position));
  const best = explained[0];
  const found = best !== undefined && best.probability >= engine.decision.threshold;
  return { found, decision: decisionFeatures(ranked), ranked: explained };
}

/** The answer to an intent: 1..limit candidates, best first, or `found: false` with a suggestion and near misses. */
export function matchIntent(engine: IntentEngine, intent: string, limit: number = DEFAULT_LIMIT): MatchResult {
  const wanted = Math.min(MAX_LIMIT, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : DEFAULT_LIMIT)));
  const { found, ranked } = explainIntent(engine, intent, Math.max(wanted, MAX_NEAR_MISSES));
  if (!found) {
    const near: NearMiss[] = ranked
      .filter((entry) => entry.features.matchedWords > 0)
      .slice(0, MAX_NEAR_MISSES)
      .map(({ tool, score }) => ({ name: tool.name, display: tool.display, score }));
    return { found: false, suggestion: missingToolSuggestion(intent), near };
  }
  // the best tool passed the decision; the others are offered only when they would pass it on their own
  const chosen = ranked
    .slice(0, wanted)
    .filter((entry, position) => position === 0 || entry.probability >= engine.decision.threshold);
  return { found: true, candidates: chosen.map(toCandidate) };
}

function explain(
  engine: IntentEngine,
  words: QueryWord[],
  ranked: RankedTool[],
  entry: RankedTool,
  position: number,
): ExplainedTool {
  const tool = engine.index.tools[entry.position]!;
  const probability = fitProbability(engine.decision, decisionFeatures(ranked, position));
  const matched = matchedFields(engine.index, entry.position, words);
  return { tool, score: round(entry.score), probability: round(probability), features: entry.features, matched };
}

function toCandidate({ tool, score, matched }: ExplainedTool): Candidate {
  return {
    name: tool.name,
    display: tool.display,
    intent: tool.intent,
    score,
    matched,
    params_schema: tool.params_schema,
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
