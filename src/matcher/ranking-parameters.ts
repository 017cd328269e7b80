import type { FieldGroup } from './search-document.js';

/** The knobs of intent ranking; the values in use are measured by `bench/match/fit.ts`, not chosen by hand. */
export interface RankingParameters {
  /** minisearch field boosts, one per field group (minisearch reads 0 as 1: use a small number instead) */
  boosts: Record<FieldGroup, number>;
  /** minisearch's BM25+ parameters: term-frequency saturation, length normalisation, per-term lower bound */
  bm25: { k: number; b: number; d: number };
  /** weight of a word the request gives as a value (quoted, a capitalised name, a code) relative to other words */
  valueWeight: number;
  /** minisearch is asked for the rarest request terms until their tools number this many (a latency bound) */
  postingsBudget: number;
  /** and for at most this many terms (a latency bound: each term costs minisearch a fixed overhead) */
  maxTerms: number;
  /** how many first-stage results the re-rank looks at */
  depth: number;
  /** weights of the re-rank's linear score */
  rerank: RerankWeights;
}

/** Weights of the second-stage score over one tool's features. */
export interface RerankWeights {
  /** first-stage score relative to the best one */
  stage1: number;
  /** share of the request's words (weighted by rarity) the tool's text contains */
  coverage: number;
  /** the same, counting only its name, display name and aliases */
  namingCoverage: number;
  /** the same, counting only its intent and examples */
  describingCoverage: number;
  /** the same, counting only its parameter names and descriptions */
  paramCoverage: number;
  /** share of the words of the tool's name (or of one alias) the request contains */
  nameShare: number;
  /** share of the words of the tool's intent (or of one example), weighted by rarity, the request contains */
  intentShare: number;
  /** share of the adjacent word pairs of the tool's names the request has side by side too */
  namePhrase: number;
  /** share of the request's adjacent word pairs the tool's intent has side by side too */
  intentPhrase: number;
  /** whether the request contains the first word of the tool's name */
  nameHead: number;
}

/** A logistic model deciding whether the best candidate fits the request at all. */
export interface DecisionModel {
  /** feature names, in the order of `weights` */
  features: DecisionFeature[];
  weights: number[];
  bias: number;
  /** the probability of "fits" below which the answer is `found: false` */
  threshold: number;
}

/** What the found/not-found decision looks at. */
export type DecisionFeature =
  | 'coverage'
  | 'namingCoverage'
  | 'describingCoverage'
  | 'paramCoverage'
  | 'nameShare'
  | 'intentShare'
  | 'namePhrase'
  | 'intentPhrase'
  | 'nameHead'
  | 'unknownShare'
  | 'valueShare'
  | 'matchedWords'
  | 'queryWords'
  | 'margin';
