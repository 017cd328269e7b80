import type { QueryOutcome } from './evaluate.js';

/** A wrong `found: false` (the agent is told to write a tool that exists) costs this many wrong candidates. */
export const FALSE_NOT_FOUND_COST = 3;

/** The numbers the benchmark reports for one group of requests. */
export interface Metrics {
  pooled: {
    queries: number;
    hit1: number;
    hit3: number;
    mrr: number;
    /** requests with two gold tools or more, and the share whose gold tools are all in the first 3 / 5 */
    multi_gold: { queries: number; all_in_top3: number; all_in_top5: number };
  };
  candidates: { queries: number; hit1: number };
  decision: DecisionMetrics;
  /** the decision over the whole pool, where "no tool fits" is not guaranteed: how often it answers found */
  pooled_decision?: { found_on_gold_queries: number; found_on_no_tool_queries: number };
}

/** The found/not-found decision within the offered candidates (positive class for precision/recall: no tool fits). */
export interface DecisionMetrics {
  queries: number;
  no_tool: number;
  /** found (any confidence) vs found: false, against "a tool fits" */
  accuracy: number;
  precision: number;
  recall: number;
  /** the share of requests with a fitting tool answered found: false */
  found_false_on_answerable: number;
  /** the share of requests no tool fits answered found: false */
  refused_no_tool: number;
  /** confident (found, confidence high) vs not, against "a tool fits" (for systems that say; else as accuracy) */
  accuracy_confident: number;
  /** the share of answerable requests answered with confidence high, and of no-tool requests */
  confident_on_answerable: number;
  confident_on_no_tool: number;
  /** how many answers are found with confidence high, and the share of them whose first candidate is a fitting tool */
  high_answers: number;
  high_precision: number;
  /**
   * Mean cost per request: a wrong found: false costs `FALSE_NOT_FOUND_COST`; a found answer whose
   * offered candidates hold no fitting tool (every found answer to a request no tool fits) costs 1.
   */
  cost: number;
  /** area under the ROC curve of the decision's signal, "a tool fits" positive */
  auroc: number;
}

/** Pooled ranking, within-candidates hit@1, and the found:false decision (positive class: no tool fits). */
export function summarise(outcomes: readonly QueryOutcome[], threshold?: number): Metrics {
  const withGold = outcomes.filter((outcome) => outcome.query.gold.length > 0);
  const multi = withGold.filter((outcome) => outcome.query.gold.length > 1);
  const withoutGold = outcomes.filter((outcome) => outcome.query.gold.length === 0);
  const pooledDecision =
    outcomes[0]?.pooledFound === undefined
      ? undefined
      : {
          found_on_gold_queries: share(withGold, (o) => o.pooledFound === true),
          found_on_no_tool_queries: share(withoutGold, (o) => o.pooledFound === true),
        };
  return {
    pooled: {
      queries: withGold.length,
      hit1: share(withGold, (o) => o.pooledRank <= 1),
      hit3: share(withGold, (o) => o.pooledRank <= 3),
      mrr: round(withGold.reduce((sum, o) => sum + 1 / o.pooledRank, 0) / Math.max(1, withGold.length)),
      multi_gold: {
        queries: multi.length,
        all_in_top3: share(multi, (o) => o.pooledAllRank <= 3),
        all_in_top5: share(multi, (o) => o.pooledAllRank <= 5),
      },
    },
    candidates: { queries: withGold.length, hit1: share(withGold, (o) => o.candidatesHit) },
    decision: decide(outcomes, threshold),
    ...(pooledDecision === undefined ? {} : { pooled_decision: pooledDecision }),
  };
}

function decide(outcomes: readonly QueryOutcome[], threshold: number | undefined): DecisionMetrics {
  const decided = outcomes.map((outcome) => {
    const found = outcome.found ?? outcome.signal >= (threshold ?? 0);
    return {
      fits: outcome.query.gold.length > 0,
      found,
      confident: found && (outcome.confidence ?? 'high') === 'high',
      hit: outcome.offeredHit,
      firstRight: outcome.candidatesHit,
      signal: outcome.signal,
    };
  });
  const answerable = decided.filter((d) => d.fits);
  const noTool = decided.filter((d) => !d.fits);
  const saidNoTool = decided.filter((d) => !d.found);
  const truePositives = noTool.filter((d) => !d.found).length;
  const cost = decided.reduce((sum, d) => sum + (d.fits && !d.found ? FALSE_NOT_FOUND_COST : d.found && !(d.fits && d.hit) ? 1 : 0), 0);
  return {
    queries: decided.length,
    no_tool: noTool.length,
    accuracy: share(decided, (d) => d.found === d.fits),
    precision: round(truePositives / Math.max(1, saidNoTool.length)),
    recall: round(truePositives / Math.max(1, noTool.length)),
    found_false_on_answerable: share(answerable, (d) => !d.found),
    refused_no_tool: share(noTool, (d) => !d.found),
    accuracy_confident: share(decided, (d) => d.confident === d.fits),
    confident_on_answerable: share(answerable, (d) => d.confident),
    confident_on_no_tool: share(noTool, (d) => d.confident),
    high_answers: decided.filter((d) => d.confident).length,
    high_precision: share(decided.filter((d) => d.confident), (d) => d.fits && d.firstRight),
    cost: round(cost / Math.max(1, decided.length)),
    auroc: auroc(decided.map((d) => d.signal), decided.map((d) => d.fits)),
  };
}

/** The area under the ROC curve: the chance that a random positive scores above a random negative (ties count half). */
export function auroc(scores: readonly number[], positive: readonly boolean[]): number {
  const order = scores.map((score, index) => ({ score, positive: positive[index]! })).sort((a, b) => a.score - b.score);
  let positives = 0;
  let rankSum = 0;
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end < order.length && order[end]!.score === order[start]!.score) end += 1;
    const averageRank = (start + 1 + end) / 2;
    for (let index = start; index < end; index += 1) {
      if (order[index]!.positive) {
        positives += 1;
        rankSum += averageRank;
      }
    }
    start = end;
  }
  const negatives = order.length - positives;
  if (positives === 0 || negatives === 0) return NaN;
  return round((rankSum - (positives * (positives + 1)) / 2) / (positives * negatives));
}

/** The p-th percentile (0..100) of the values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return round(sorted[rank] ?? 0, 4);
}

function share<T>(items: readonly T[], test: (item: T) => boolean): number {
  return round(items.filter(test).length / Math.max(1, items.length));
}

function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
