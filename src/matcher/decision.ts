import type { RankedTool } from './rank.js';
import type { DecisionFeature, DecisionModel } from './ranking-parameters.js';

/** Every feature the decision can use, in a fixed order. */
export const DECISION_FEATURES: readonly DecisionFeature[] = [
  'coverage',
  'namingCoverage',
  'describingCoverage',
  'paramCoverage',
  'nameShare',
  'intentShare',
  'namePhrase',
  'intentPhrase',
  'nameHead',
  'unknownShare',
  'valueShare',
  'matchedWords',
  'queryWords',
  'margin',
];

const NOTHING: Record<DecisionFeature, number> = Object.fromEntries(
  DECISION_FEATURES.map((feature) => [feature, 0]),
) as Record<DecisionFeature, number>;

/** The decision's view of the tool at `position` of a ranking: its features and its lead over the next one. */
export function decisionFeatures(ranked: readonly RankedTool[], position = 0): Record<DecisionFeature, number> {
  const best = ranked[position];
  if (best === undefined) return { ...NOTHING };
  const second = ranked[position + 1];
  const { stage1: _stage1, ...features } = best.features;
  return {
    ...features,
    // counts enter on a log scale: the fifth matched word means less than the first
    matchedWords: Math.log1p(features.matchedWords),
    queryWords: Math.log1p(features.queryWords),
    margin: second === undefined || best.score <= 0 ? 1 : (best.score - second.score) / best.score,
  };
}

/** The probability that the best-ranked tool fits the request. */
export function fitProbability(model: DecisionModel, features: Record<DecisionFeature, number>): number {
  let logit = model.bias;
  model.features.forEach((name, index) => {
    logit += model.weights[index]! * features[name];
  });
  return 1 / (1 + Math.exp(-logit));
}
