import type { ToolFeatures } from './features.js';
import type { FieldGroup } from './search-document.js';

/** The knobs of intent ranking; the values in use are measured by `bench/match/fit.ts`, not chosen by hand. */
export interface RankingParameters {
  /** first-stage field boosts, one per field group (0 reads as 1, as minisearch read it: use a small number instead) */
  boosts: Record<FieldGroup, number>;
  /** the first stage's BM25+ parameters (minisearch's): term-frequency saturation, length normalisation, per-term lower bound */
  bm25: { k: number; b: number; d: number };
  /** weight of a word the request gives as a value (quoted, a capitalised name, a code) relative to other words */
  valueWeight: number;
  /** the first stage reads the rarest request terms until their tools number this many (a latency bound) */
  postingsBudget: number;
  /** and at most this many terms (a latency bound: each term costs a pass over its postings) */
  maxTerms: number;
  /** how many first-stage results the re-rank looks at */
  depth: number;
  /** weights of the re-rank's linear score */
  rerank: RerankWeights;
  /**
   * weight in the re-rank's score of the cosine of the request's and the tool's word vectors (`similarityScorer`);
   * 0: the vectors are neither read nor used
   */
  similarity: number;
  /**
   * what a tool the words give evidence for gains in the re-rank when the request gives dates and it has parameters to
   * take them (`dateShare`: the share of the dates it can take); 0: dates are not looked for
   */
  dates: number;
  /**
   * how many tools nearest the request in meaning (the cosine of word vectors, `cosinesOf`) join the first stage's before
   * the re-rank, beside the words' own (a hybrid first stage); 0: none
   */
  meaningDepth: number;
}

/** The features of a tool the second-stage score weighs (the rest describe the request, for the decision; `contentCoverage` is read by `strongMatch`, for the confidence). */
export type RerankFeature = Exclude<keyof ToolFeatures, 'unknownShare' | 'valueShare' | 'matchedWords' | 'queryWords' | 'evidence' | 'contentCoverage'>;

/** Weights of the second-stage score over one tool's features (see `ToolFeatures` for each). */
export type RerankWeights = Record<RerankFeature, number>;

/**
 * A logistic model of whether the best candidate fits the request: it decides between
 * `confidence: "high"` and `"low"` (whether anything matches at all is `NOTHING_MATCHES`'s).
 */
export interface DecisionModel {
  /** feature names, in the order of `weights` */
  features: DecisionFeature[];
  weights: number[];
  bias: number;
  /** the probability of "fits" below which confidence is low, for a registry too small to calibrate its own */
  threshold: number;
}

/**
 * What the decision looks at: the best tool's features but its first-stage score, and its lead over the next
 * (`plainCoverage` joined the re-rank after the confidence model was fitted, and is not among them).
 */
export type DecisionFeature = Exclude<keyof ToolFeatures, 'stage1' | 'plainCoverage' | 'contentCoverage'> | 'margin';
