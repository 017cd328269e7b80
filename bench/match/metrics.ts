import type { QueryOutcome } from './evaluate.js';

/** The numbers the benchmark reports for one group of requests. */
export interface Metrics {
  pooled: { queries: number; hit1: number; hit3: number; mrr: number };
  candidates: { queries: number; hit1: number };
  decision: { queries: number; no_tool: number; accuracy: number; precision: number; recall: number };
  /** the decision over the whole pool, where "no tool fits" is not guaranteed: how often it answers found */
  pooled_decision?: { found_on_gold_queries: number; found_on_no_tool_queries: number };
}

/** Pooled ranking, within-candidates hit@1, and the found:false decision (positive class: no tool fits). */
export function summarise(outcomes: readonly QueryOutcome[], threshold?: number): Metrics {
  const withGold = outcomes.filter((outcome) => outcome.query.gold.length > 0);
  const decided = outcomes.map((outcome) => ({
    noTool: outcome.query.gold.length === 0,
    saysNoTool: !(outcome.found ?? outcome.signal >= (threshold ?? 0)),
  }));
  const truePositives = decided.filter((d) => d.noTool && d.saysNoTool).length;
  const saidNoTool = decided.filter((d) => d.saysNoTool).length;
  const noTool = decided.filter((d) => d.noTool).length;
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
    },
    candidates: { queries: withGold.length, hit1: share(withGold, (o) => o.candidatesHit) },
    decision: {
      queries: decided.length,
      no_tool: noTool,
      accuracy: share(decided, (d) => d.noTool === d.saysNoTool),
      precision: round(truePositives / Math.max(1, saidNoTool)),
      recall: round(truePositives / Math.max(1, noTool)),
    },
    ...(pooledDecision === undefined ? {} : { pooled_decision: pooledDecision }),
  };
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
