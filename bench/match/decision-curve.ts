import type { DecisionModel, RankingParameters } from '../../src/matcher/index.js';
import { isTuningQuery, type BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { decisionRows } from './fit-decision.js';
import { predictLogistic } from './logistic.js';

/** One point of the found/not-found trade-off; the positive class is "no tool fits". */
export interface CurvePoint {
  threshold: number;
  accuracy: number;
  /** of the requests answered found: false, the share with no fitting tool */
  precision: number;
  /** of the requests with no fitting tool, the share answered found: false */
  recall: number;
  /** of the requests with a fitting tool, the share wrongly answered found: false */
  false_positive_rate: number;
}

/** The decision's probabilities of "a tool fits", within each request's offered candidates, with the labels. */
function decisionScores(
  world: BenchWorld,
  queries: readonly BenchQuery[],
  ranking: RankingParameters,
  decision: DecisionModel,
): Array<{ probability: number; fits: boolean }> {
  const { rows, labels } = decisionRows(world, queries, ranking, decision.features);
  return rows.map((row, index) => ({
    probability: predictLogistic({ weights: decision.weights, bias: decision.bias }, row),
    fits: labels[index] === 1,
  }));
}

/** The decision's accuracy on each split at its own threshold. */
export function decisionAccuracy(
  world: BenchWorld,
  queries: readonly BenchQuery[],
  ranking: RankingParameters,
  decision: DecisionModel,
): { tuning_even: number; held_out_odd: number } {
  const accuracy = (tuning: boolean): number => {
    const scores = decisionScores(world, queries.filter((q) => isTuningQuery(q) === tuning), ranking, decision);
    return curvePoint(scores, decision.threshold).accuracy;
  };
  return { tuning_even: accuracy(true), held_out_odd: accuracy(false) };
}

/** Accuracy, precision, recall and false-positive rate of saying found: false below `threshold`. */
export function curvePoint(scores: ReadonlyArray<{ probability: number; fits: boolean }>, threshold: number): CurvePoint {
  let truePositive = 0;
  let falsePositive = 0;
  let noTool = 0;
  for (const { probability, fits } of scores) {
    const saysNoTool = probability < threshold;
    if (!fits) noTool += 1;
    if (saysNoTool && !fits) truePositive += 1;
    if (saysNoTool && fits) falsePositive += 1;
  }
  const fitting = scores.length - noTool;
  const correct = truePositive + (fitting - falsePositive);
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    threshold,
    accuracy: round(correct / Math.max(1, scores.length)),
    precision: round(truePositive / Math.max(1, truePositive + falsePositive)),
    recall: round(truePositive / Math.max(1, noTool)),
    false_positive_rate: round(falsePositive / Math.max(1, fitting)),
  };
}
