import type { SearchResult } from 'minisearch';
import type { RankingParameters } from './ranking-parameters.js';
import { FIELD_GROUPS, type FieldGroup } from './search-document.js';
import type { SearchIndex } from './search-index.js';

/** A term of the request as the first stage reads it: its weight relative to a plain content word. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** One tool the first stage found, with its minisearch score. */
export interface FirstStageHit {
  position: number;
  score: number;
}

// minisearch takes one boost per field; the fitted boosts are per field group
const fieldBoosts = new WeakMap<Record<FieldGroup, number>, Record<string, number>>();

/**
 * minisearch's BM25 over the tools' fields (per field, weighted by its group's boost), each term
 * weighted by the request; the best `depth` tools come back, best first (ties by position).
 */
export function firstStage(index: SearchIndex, parameters: RankingParameters, terms: WeightedTerm[]): FirstStageHit[] {
  const chosen = choose(index, terms, parameters);
  if (chosen.size === 0) return [];
  const results = index.minisearch.search([...chosen.keys()].join(' '), {
    boost: boostsFor(parameters.boosts),
    bm25: parameters.bm25,
    boostTerm: (term) => chosen.get(term) ?? 1,
  });
  return best(index, results, parameters.depth);
}

// Rarest terms first, until their tools fill the budget or there are `maxTerms` of them: minisearch
// spends time on every tool a term brings and on every term, frequent terms discriminate least,
// and the re-rank still counts all the request's words for the tools the rare ones found. A term
// two words yield (a character of two Chinese words) keeps the larger weight.
function choose(index: SearchIndex, terms: WeightedTerm[], parameters: RankingParameters): Map<string, number> {
  const weights = new Map<string, number>();
  for (const { term, weight } of terms) {
    if (!index.documentFrequency.has(term)) continue;
    weights.set(term, Math.max(weight, weights.get(term) ?? 0));
  }
  const frequency = (term: string): number => index.documentFrequency.get(term)!;
  const usable = [...weights.keys()].sort((a, b) => frequency(a) - frequency(b));
  const chosen = new Map<string, number>();
  let postings = 0;
  for (const term of usable) {
    postings += frequency(term);
    if (chosen.size === parameters.maxTerms || (chosen.size > 0 && postings > parameters.postingsBudget)) break;
    chosen.set(term, weights.get(term)!);
  }
  return chosen;
}

function boostsFor(groups: Record<FieldGroup, number>): Record<string, number> {
  let boosts = fieldBoosts.get(groups);
  if (boosts === undefined) {
    boosts = {};
    for (const [group, fields] of Object.entries(FIELD_GROUPS)) {
      for (const field of fields) boosts[field] = groups[group as FieldGroup];
    }
    fieldBoosts.set(groups, boosts);
  }
  return boosts;
}

// minisearch sorts by score alone, in the order it met the tools; ties are broken by position here
// so that an index updated in place ranks exactly as one built afresh
function best(index: SearchIndex, results: SearchResult[], depth: number): FirstStageHit[] {
  let end = Math.min(depth, results.length);
  const last = results[end - 1]?.score;
  while (end < results.length && results[end]!.score === last) end += 1;
  const hits = results
    .slice(0, end)
    .map((result): FirstStageHit => ({ position: index.positions.get(result.id as number)!, score: result.score }));
  hits.sort((a, b) => b.score - a.score || a.position - b.position);
  return hits.slice(0, depth);
}
