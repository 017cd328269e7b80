import { analyzeWords, type AnalyzedWord } from './analyze.js';
import type { RankingParameters } from './ranking-parameters.js';
import { SEARCH_FIELDS, type SearchField } from './search-document.js';
import {
  DESCRIBING_FIELDS,
  FIELD_BIT,
  NAMING_FIELDS,
  PARAM_FIELDS,
  inverseDocumentFrequency,
  type SearchIndex,
} from './search-index.js';

/** What the re-rank and the decision know about one tool for one request. */
export interface ToolFeatures {
  /** first-stage score relative to the best one, 0..1 */
  stage1: number;
  /** share of the request's words (weighted by rarity) found anywhere in the tool's text */
  coverage: number;
  /** the same, in its name, display name or aliases */
  namingCoverage: number;
  /** the same, in its intent or examples */
  describingCoverage: number;
  /** the same, in its parameter names and descriptions */
  paramCoverage: number;
  /** share of the words of the tool's name (or of one alias) the request contains */
  nameShare: number;
  /** share of the words of the tool's intent (or of one example), weighted by rarity, the request contains */
  intentShare: number;
  /** request words found in the tool's text (a word found only in part counts as that part) */
  matchedWords: number;
  /** content words in the request */
  queryWords: number;
}

/** One tool ranked for a request. */
export interface RankedTool {
  /** position of the tool in the index */
  position: number;
  score: number;
  /** the raw first-stage (BM25) score */
  stage1Score: number;
  features: ToolFeatures;
}

/** A request's content words, each with its terms and its weight (rarity in the index). */
export interface QueryWord {
  word: string;
  terms: string[];
  weight: number;
}

/** The ranking of the tools for one request, and the request's words. */
export interface Ranking {
  words: QueryWord[];
  ranked: RankedTool[];
}

// An intent is a sentence or two; past this many distinct words the rest is pasted material, and
// reading all of it would make one request cost as much as hundreds.
const MAX_QUERY_WORDS = 32;
// far more text than 32 words need: a pasted document is not split and lower-cased in full
const MAX_QUERY_CHARACTERS = 4096;

/** Ranks the tools for a request: field-weighted BM25, then a re-rank of the best few by coverage. */
export function rankTools(index: SearchIndex, parameters: RankingParameters, text: string): Ranking {
  const words = queryWords(index, analyzeWords(text.slice(0, MAX_QUERY_CHARACTERS), MAX_QUERY_WORDS));
  if (words.length === 0 || index.tools.length === 0) return { words, ranked: [] };
  const terms = firstStageTerms(index, words, parameters);
  const results = index.minisearch
    .search(terms.join(' '), {
      boost: parameters.boosts,
      bm25: parameters.bm25,
      prefix: (term) => parameters.prefixMinLength > 0 && term.length >= parameters.prefixMinLength,
      weights: { prefix: parameters.prefixWeight, fuzzy: 0 },
      combineWith: 'OR',
    })
    .slice(0, parameters.depth);
  const best = results[0]?.score ?? 0;
  const queryTerms = new Set(words.flatMap((word) => word.terms));
  const ranked = results.map((result): RankedTool => {
    const position = result.id as number;
    const stage1 = best > 0 ? result.score / best : 0;
    const features = measure(index, position, words, queryTerms, stage1);
    const weights = parameters.rerank;
    const score =
      weights.stage1 * features.stage1 +
      weights.coverage * features.coverage +
      weights.namingCoverage * features.namingCoverage +
      weights.describingCoverage * features.describingCoverage +
      weights.paramCoverage * features.paramCoverage +
      weights.nameShare * features.nameShare +
      weights.intentShare * features.intentShare;
    return { position, score, stage1Score: result.score, features };
  });
  ranked.sort((a, b) => b.score - a.score || a.position - b.position);
  return { words, ranked };
}

// Rarest terms first, until their postings fill the budget: frequent terms cost the most time and
// discriminate least, and the re-rank still counts them for the tools the rare ones found. A term
// no tool has is kept only when it may still match as the prefix of a longer one.
function firstStageTerms(index: SearchIndex, words: QueryWord[], parameters: RankingParameters): string[] {
  const frequency = (term: string): number => index.documentFrequency.get(term) ?? 0;
  const prefixes = (term: string): boolean =>
    parameters.prefixMinLength > 0 && term.length >= parameters.prefixMinLength;
  const usable = [...new Set(words.flatMap((word) => word.terms))].filter(
    (term) => frequency(term) > 0 || prefixes(term),
  );
  usable.sort((a, b) => frequency(a) - frequency(b));
  const chosen: string[] = [];
  let postings = 0;
  for (const term of usable) {
    postings += frequency(term);
    if (chosen.length > 0 && postings > parameters.postingsBudget) break;
    chosen.push(term);
  }
  return chosen;
}


function queryWords(index: SearchIndex, analysed: AnalyzedWord[]): QueryWord[] {
  const seen = new Set<string>();
  const words: QueryWord[] = [];
  for (const { word, terms } of analysed) {
    if (words.length === MAX_QUERY_WORDS) break;
    if (seen.has(terms[0]!)) continue;
    seen.add(terms[0]!);
    words.push({ word, terms, weight: inverseDocumentFrequency(index, terms[0]!) });
  }
  return words;
}

function measure(
  index: SearchIndex,
  position: number,
  words: QueryWord[],
  queryTerms: Set<string>,
  stage1: number,
): ToolFeatures {
  const fields = index.termFields[position]!;
  let total = 0;
  let covered = 0;
  let named = 0;
  let described = 0;
  let parameters = 0;
  let matchedWords = 0;
  for (const word of words) {
    total += word.weight;
    const { share, mask } = wordMatch(fields, word);
    if (share === 0) continue;
    const weight = word.weight * share;
    matchedWords += share;
    covered += weight;
    if (mask & NAMING_FIELDS) named += weight;
    if (mask & DESCRIBING_FIELDS) described += weight;
    if (mask & PARAM_FIELDS) parameters += weight;
  }
  return {
    stage1,
    coverage: total > 0 ? covered / total : 0,
    namingCoverage: total > 0 ? named / total : 0,
    describingCoverage: total > 0 ? described / total : 0,
    paramCoverage: total > 0 ? parameters / total : 0,
    nameShare: bestNameShare(index.nameVariants[position]!, queryTerms),
    intentShare: bestIntentShare(index.intentVariants[position]!, queryTerms),
    matchedWords,
    queryWords: words.length,
  };
}

// the name (or alias) the request mentions most completely
function bestNameShare(variants: string[][], queryTerms: Set<string>): number {
  let best = 0;
  for (const terms of variants) {
    let hits = 0;
    for (const term of terms) if (queryTerms.has(term)) hits += 1;
    best = Math.max(best, hits / terms.length);
  }
  return best;
}

// the intent (or example) the request mirrors most completely, rare words counting more
function bestIntentShare(variants: Array<Array<[string, number]>>, queryTerms: Set<string>): number {
  let best = 0;
  for (const terms of variants) {
    let total = 0;
    let hits = 0;
    for (const [term, weight] of terms) {
      total += weight;
      if (queryTerms.has(term)) hits += weight;
    }
    if (total > 0) best = Math.max(best, hits / total);
  }
  return best;
}

/** Which request words occur (whole, or mostly) in which fields of a tool, e.g. `intent: 提交, 记录`. */
export function matchedFields(index: SearchIndex, position: number, words: QueryWord[]): string[] {
  const fields = index.termFields[position]!;
  const byField = new Map<SearchField, string[]>();
  for (const word of words) {
    const { share, mask } = wordMatch(fields, word);
    if (share <= 0.5) continue; // a word found only in small part is not shown as found
    for (const field of SEARCH_FIELDS) {
      if (mask & FIELD_BIT[field]) byField.set(field, [...(byField.get(field) ?? []), word.word]);
    }
  }
  return [...byField].map(([field, matched]) => `${field}: ${matched.join(', ')}`);
}

// A whole word counts fully. An ideographic word not found whole counts by the share of its
// characters that matched parts (single characters or character pairs) cover.
function wordMatch(fields: Map<string, number>, word: QueryWord): { share: number; mask: number } {
  const whole = fields.get(word.terms[0]!);
  if (whole !== undefined) return { share: 1, mask: whole };
  if (word.terms.length === 1) return { share: 0, mask: 0 };
  const characters = [...word.word];
  const covered = new Array<boolean>(characters.length).fill(false);
  let mask = 0;
  characters.forEach((character, index) => {
    const single = fields.get(character);
    const pair = index + 1 < characters.length ? fields.get(character + characters[index + 1]!) : undefined;
    if (single !== undefined) [covered[index], mask] = [true, mask | single];
    if (pair !== undefined) [covered[index], covered[index + 1], mask] = [true, true, mask | pair];
  });
  return { share: covered.filter(Boolean).length / characters.length, mask };
}
