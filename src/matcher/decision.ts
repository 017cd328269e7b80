import type { RankedTool, ToolFeatures } from './rank.js';
import type { DecisionFeature, DecisionModel } from './ranking-parameters.js';

/** Every feature a confidence model can use, in a fixed order (the fitted model names the ones it uses). */
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
  'evidence',
  'margin',
];

/**
 * What describes the request rather than how the best tool and the request cover each other: its
 * length, its share of values or of words no tool has, how much evidence it gives at all, and the
 * best tool's lead. Those describe a benchmark's style of request, and a model leaning on them
 * answered `found: false` for a quarter of the plain requests of another registry.
 */
const REQUEST_STYLE: ReadonlySet<DecisionFeature> = new Set<DecisionFeature>([
  'unknownShare',
  'valueShare',
  'matchedWords',
  'queryWords',
  'evidence',
  'margin',
]);

/** The features the confidence model is fitted on: `DECISION_FEATURES` but the request's style. */
export const CONFIDENCE_FEATURES: readonly DecisionFeature[] = DECISION_FEATURES.filter((feature) => !REQUEST_STYLE.has(feature));

/**
 * Below this much evidence (see `ToolFeatures.evidence`) among the best-ranked tools, nothing in
 * the request matches any tool. One content word found whole in what names or describes a tool is
 * 1, among its parameters 0.5; a lone Chinese or Japanese character (0.25), a value the request
 * gives matching a parameter, or a word found only in a tool's `why` or `group` stays under it.
 */
export const NOTHING_MATCHES = 0.3;

/**
 * Whether the first tool's match is strong enough for `confidence: "high"` (README: `low` when the candidates match only
 * part of the request; userZ7 F6, issue #11): not when the tool has none of the request's content but its values (the
 * notes tool for `tally the rows of notes.txt`, by the file's name), nor when it has one word of a request of two or
 * more and at most half of its content by rarity (`delete the temp folder` → a list tool on *folder*, `send an email
 * to bob` → a Slack tool on *send*; `commit crimes` → git-ops, half, as a word no tool has weighs as one a single tool
 * has: review userZ10, U10-7). Content leaves out what says when (`QueryWord.when`): *weather … tomorrow* is whole. Chosen
 * on BFCL's even half (`bench/match/high-evidence.ts`, bench/HISTORY.md): a cut on the covered share alone lowered more
 * right answers than wrong ones at every level that reached F6's requests.
 */
export function strongMatch(features: Pick<ToolFeatures, 'contentCoverage' | 'matchedWords' | 'queryWords'>): boolean {
  if (features.contentCoverage <= 0) return false;
  return !(features.matchedWords <= 1 && features.queryWords >= 2 && features.contentCoverage <= ONE_WORD_SHARE);
}

/** The share of a request's content up to which a tool having one of its words does not answer it confidently. */
export const ONE_WORD_SHARE = 0.5;

const NOTHING: Record<DecisionFeature, number> = Object.fromEntries(
  DECISION_FEATURES.map((feature) => [feature, 0]),
) as Record<DecisionFeature, number>;

/** The decision's view of the tool at `position` of a ranking: its features and its lead over the next one. */
export function decisionFeatures(ranked: readonly RankedTool[], position = 0): Record<DecisionFeature, number> {
  const best = ranked[position];
  if (best === undefined) return { ...NOTHING };
  const second = ranked[position + 1];
  const features = best.features;
  // every feature but stage1, in their order, written out: a rest pattern and a spread made two objects the slow
  // way on every request of a first pass (issue #18)
  return {
    coverage: features.coverage,
    namingCoverage: features.namingCoverage,
    describingCoverage: features.describingCoverage,
    paramCoverage: features.paramCoverage,
    nameShare: features.nameShare,
    intentShare: features.intentShare,
    namePhrase: features.namePhrase,
    intentPhrase: features.intentPhrase,
    nameHead: features.nameHead,
    unknownShare: features.unknownShare,
    valueShare: features.valueShare,
    // counts enter on a log scale: the fifth matched word means less than the first
    matchedWords: Math.log1p(features.matchedWords),
    queryWords: Math.log1p(features.queryWords),
    evidence: features.evidence,
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
