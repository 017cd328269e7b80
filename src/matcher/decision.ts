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
  return {
    coverage: best.features.coverage,
    namingCoverage: best.features.namingCoverage,
    describingCoverage: best.features.describingCoverage,
    paramCoverage: best.features.paramCoverage,
    nameShare: best.features.nameShare,
    intentShare: best.features.intentShare,
    namePhrase: best.features.namePhrase,
    intentPhrase: best.features.intentPhrase,
    nameHead: best.features.nameHead,
    unknownShare: best.features.unknownShare,
    valueShare: best.features.valueShare,
    // counts enter on a log scale: the fifth matched word means less than the first
    matchedWords: Math.log1p(best.features.matchedWords),
    queryWords: Math.log1p(best.features.queryWords),
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
