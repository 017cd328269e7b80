import {
  CONFIDENCE_FEATURES,
  createMatcher,
  DECISION_FEATURES,
  type DecisionFeature,
  type DecisionModel,
  type Matcher,
  type RankingParameters,
} from '../../src/matcher/index.js';
import type { BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { fitLogistic } from './logistic.js';
import { asIndex } from './systems.js';

/** The decision's features for each request, searched within the candidates offered with it; label 1: a tool fits. */
export function decisionRows(
  world: BenchWorld,
  queries: readonly BenchQuery[],
  ranking: RankingParameters,
  features: readonly DecisionFeature[] = DECISION_FEATURES,
): { rows: number[][]; labels: number[] } {
  const matchers = new Map<string, Matcher>();
  const rows: number[][] = [];
  const labels: number[] = [];
  for (const query of queries) {
    const key = [...query.candidates].sort().join('\n');
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      const tools = query.candidates.map((id) => world.toolsById.get(id)!);
      matcher = createMatcher(asIndex(tools), { ranking });
      matchers.set(key, matcher);
    }
    const { decision } = matcher.explainIntent(query.text);
    rows.push(features.map((feature) => decision[feature]));
    labels.push(query.gold.length > 0 ? 1 : 0);
  }
  return { rows, labels };
}

/**
 * Fits the confidence model on the tuning requests, over `CONFIDENCE_FEATURES` (what the match
 * says, not what the request looks like); 0.5 is the cut a calibrated probability implies.
 */
export function fitDecision(world: BenchWorld, queries: readonly BenchQuery[], ranking: RankingParameters): DecisionModel {
  const { rows, labels } = decisionRows(world, queries, ranking, CONFIDENCE_FEATURES);
  const fit = fitLogistic(rows, labels);
  return {
    features: [...CONFIDENCE_FEATURES],
    weights: fit.weights.map((weight) => round(weight)),
    bias: round(fit.bias),
    threshold: 0.5,
  };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
