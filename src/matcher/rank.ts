import { dateShare, requestDates } from './dates.js';
import { NOTHING_MATCHES } from './decision.js';
import { measure, type ToolFeatures } from './features.js';
import { firstStage, type FirstStageHit, type WeightedTerm } from './first-stage.js';
import type { RankingParameters, RerankWeights } from './ranking-parameters.js';
import { readRequest, type QueryWord } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { cosinesOf, similarityScorer } from './similarity.js';

export type { ToolFeatures } from './features.js';
export type { QueryWord } from './request-words.js';

/** One tool ranked for a request. */
export interface RankedTool {
  /** position of the tool in the index */
  position: number;
  score: number;
  /** the raw first-stage (BM25+, minisearch's) score */
  stage1Score: number;
  features: ToolFeatures;
  /**
   * how near in meaning the request and the tool are (`similarityScorer`), 0..1; 0 with no similarity weight, for a
   * tool the words give no evidence for, and for texts with no English word in the table
   */
  similarity: number;
  /**
   * the score by the words alone (`score` less the similarity's and the date's parts): whether anything matches is judged over the
   * best tools in this order, so the vectors re-order candidates without deciding that a request is answerable
   */
  wordsScore: number;
  /** brought up by meaning alone (`meaningDepth`), not by the words' first stage */
  meaning?: true;
}

/** The ranking of the tools for one request, and the request's words. */
export interface Ranking {
  words: QueryWord[];
  ranked: RankedTool[];
  /** the request is not in English (its cosines count for the share of its words its vector stands for) */
  foreign: boolean;
  /**
   * every tool's cosine with the request, by position (NaN: the tool has no vector), where the hybrid first stage ran
   * (`MAX_HYBRID_TOOLS`): the vector stage reads them rather than make them again
   */
  cosines?: Float64Array;
}

/**
 * The most tools a registry may have for the hybrid first stage (the `meaningDepth` nearest in meaning joining the
 * words' hits) to run at every request: it costs a cosine a tool, ~0.2 ms a request at this size at load 13-21 (about
 * the words' own p50 there; p99 0.56-0.62 ms against main's 0.35-0.37: bench/HISTORY.md, hybrid22), within the 1 ms
 * goal; past it the words' first stage alone, as before (BFCL's 3,148 tools gained nothing from it: rank19).
 */
export const MAX_HYBRID_TOOLS = 1_000;

/**
 * Ranks the tools for a request: BM25+ over the fields (minisearch's scores, our postings), then a re-rank of the
 * best few by coverage and by how near in meaning each is to the request (word vectors: they re-order the tools
 * the words found and, in a registry of at most `MAX_HYBRID_TOOLS`, add the `meaningDepth` nearest in meaning).
 */
export function rankTools(index: SearchIndex, parameters: RankingParameters, text: string, thesaurus = false): Ranking {
  const request = readRequest(index, text, parameters.valueWeight, thesaurus);
  const { words, foreign } = request;
  if (words.length === 0 || index.tools.length === 0) return { words, ranked: [], foreign };
  const terms = words.flatMap((word, at): WeightedTerm[] => {
    const weight = word.value ? parameters.valueWeight : 1;
    const own = word.terms.map((term) => ({ term, weight, word: at }));
    for (const term of word.relatives) own.push({ term, weight: weight * RELATIVE_WEIGHT, word: at });
    return word.glosses.senses.length === 0 ? own : [...own, ...glossTerms(word.glosses, at)];
  });
  const { hits, cosines } = withNearest(index, parameters, request, firstStage(index, parameters, terms));
  const best = hits[0]?.score ?? 0;
  // the weights' names once per request, not per tool (an array each time)
  const names = Object.keys(parameters.rerank) as Array<keyof RerankWeights>;
  const near = parameters.similarity > 0 ? similarityScorer(index, words, request.foreign) : undefined;
  const dates = parameters.dates > 0 ? requestDates(text) : 0;
  const ranked = hits.map(({ position, score, meaning }): RankedTool => {
    const features = measure(index, position, request, best > 0 ? score / best : 0);
    // meaning lifts a tool the words give evidence for (what names or describes it has a word of the request), and one
    // it brought up itself (`withNearest`): one the words found only in its `why` or by a value is not lifted above it,
    // and nothing is pushed down; a parameter that takes the request's date lifts only the former
    const evident = features.evidence >= NOTHING_MATCHES;
    const similarity = near === undefined || !(evident || meaning) ? 0 : Math.max(0, near.similarity(position));
    const dated = dates === 0 || !evident ? 0 : parameters.dates * dateShare(index, position, dates);
    const words = rerankScore(parameters.rerank, names, features);
    const ranked: RankedTool = { position, score: words + parameters.similarity * similarity + dated, stage1Score: score, features, similarity, wordsScore: words };
    if (meaning) ranked.meaning = true;
    return ranked;
  });
  ranked.sort((a, b) => b.score - a.score || a.position - b.position);
  return cosines === undefined ? { words, ranked, foreign } : { words, ranked, foreign, cosines };
}

/** A tool the re-rank looks at: found by the words (BM25+), or brought up by meaning alone (`meaning`, score 0). */
type Hit = FirstStageHit & { meaning?: true };

// The first stage's hits and, after them, the `meaningDepth` tools nearest the request in meaning (the cosine of word
// vectors, every tool's: `cosinesOf`) that the words did not find: a hybrid first stage, lexical and dense. Those come
// with a first-stage score of 0 and are judged by the re-rank's features as any other, their cosine counted; whether
// anything matches stays the words' business (`evidence`), so a tool brought up by meaning alone never makes a request
// answerable. Only where the registry is small enough for a pass over every tool to cost little (`MAX_HYBRID_TOOLS`).
function withNearest(
  index: SearchIndex,
  parameters: RankingParameters,
  request: ReturnType<typeof readRequest>,
  hits: Hit[],
): { hits: Hit[]; cosines?: Float64Array } {
  const depth = parameters.meaningDepth;
  if (!(depth > 0) || parameters.similarity <= 0 || index.records.length > MAX_HYBRID_TOOLS) return { hits };
  const cosines = cosinesOf(index, request.words, request.foreign);
  if (cosines === undefined) return { hits };
  const taken = new Set<number>();
  for (const hit of hits) taken.add(hit.position);
  // the `depth` largest positive cosines among the tools the words did not find, largest first (ties: earlier position)
  const nearest: number[] = [];
  for (let position = 0; position < cosines.length; position++) {
    const cosine = cosines[position]!;
    if (!(cosine > 0) || taken.has(position)) continue;
    if (nearest.length === depth && cosine <= cosines[nearest[depth - 1]!]!) continue;
    let place = nearest.length === depth ? depth - 1 : nearest.length;
    while (place > 0 && cosines[nearest[place - 1]!]! < cosine) {
      nearest[place] = nearest[place - 1]!;
      place -= 1;
    }
    nearest[place] = position;
  }
  if (nearest.length === 0) return { hits, cosines };
  const all: Hit[] = hits.slice();
  for (const position of nearest) all.push({ position, score: 0, meaning: true });
  return { hits: all, cosines };
}

// Another form of an English word (`relativesOf`) is less sure than the word itself, as a translation is.
const RELATIVE_WEIGHT = 0.5;

// A word's senses are alternatives, and a translation is less sure than the word itself: each
// term of its senses is searched at a fraction of a word's weight.
const GLOSS_WEIGHT = 0.5;

function glossTerms(glosses: QueryWord['glosses'], word: number): WeightedTerm[] {
  return [...new Set(glosses.senses.flat())].map((term) => ({ term, weight: GLOSS_WEIGHT, word }));
}

function rerankScore(weights: RerankWeights, names: ReadonlyArray<keyof RerankWeights>, features: ToolFeatures): number {
  let score = 0;
  for (const name of names) score += weights[name] * features[name];
  return score;
}
