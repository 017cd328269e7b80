import type { RankingParameters } from './ranking-parameters.js';
import { GROUPS, inverseDocumentFrequency, type SearchIndex } from './search-index.js';

/** A term of the request as the first stage reads it: its weight relative to a plain content word. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** One tool the first stage found, with its BM25F score. */
export interface FirstStageHit {
  position: number;
  score: number;
}

// per index, the length normalisation of each tool and field group for one value of b
const normCache = new WeakMap<SearchIndex, Map<number, Float32Array>>();
// one score buffer per index: queries run one at a time on the event loop
const scratch = new WeakMap<SearchIndex, Float64Array>();

/**
 * BM25F: per term, the field groups' frequencies are weighted by boost and length-normalised, summed,
 * and saturated once; the best `depth` tools come back, best first (ties by position).
 */
export function firstStage(index: SearchIndex, parameters: RankingParameters, terms: WeightedTerm[]): FirstStageHit[] {
  const chosen = choose(index, terms, parameters.postingsBudget);
  const norms = normsFor(index, parameters.bm25.b);
  const boosts = GROUPS.map((group) => parameters.boosts[group]);
  const { k, d } = parameters.bm25;
  const width = GROUPS.length;
  let scores = scratch.get(index);
  if (scores === undefined || scores.length !== index.tools.length) {
    scores = new Float64Array(index.tools.length);
    scratch.set(index, scores);
  }
  const touched: number[] = [];
  for (const { term, weight } of chosen) {
    const postings = index.postings.get(term)!;
    const termWeight = weight * inverseDocumentFrequency(index, term);
    const { tools, frequencies } = postings;
    for (let entry = 0; entry < tools.length; entry += 1) {
      const position = tools[entry]!;
      let frequency = 0;
      for (let slot = 0; slot < width; slot += 1) {
        frequency += boosts[slot]! * frequencies[entry * width + slot]! * norms[position * width + slot]!;
      }
      if (frequency <= 0) continue;
      if (scores[position] === 0) touched.push(position);
      scores[position]! += termWeight * (frequency / (k + frequency) + d);
    }
  }
  const hits = best(touched, scores, parameters.depth);
  for (const position of touched) scores[position] = 0;
  return hits;
}

// Rarest terms first, until their postings fill the budget: frequent terms cost the most time and
// discriminate least, and the re-rank still counts them for the tools the rare ones found.
function choose(index: SearchIndex, terms: WeightedTerm[], budget: number): WeightedTerm[] {
  const byTerm = new Map<string, WeightedTerm>();
  for (const entry of terms) {
    const known = byTerm.get(entry.term);
    const stronger = known === undefined || known.weight < entry.weight;
    if (stronger && index.postings.has(entry.term)) byTerm.set(entry.term, entry);
  }
  const frequency = (term: string): number => index.documentFrequency.get(term) ?? 0;
  const usable = [...byTerm.values()].sort((a, b) => frequency(a.term) - frequency(b.term));
  const chosen: WeightedTerm[] = [];
  let postings = 0;
  for (const entry of usable) {
    postings += frequency(entry.term);
    if (chosen.length > 0 && postings > budget) break;
    chosen.push(entry);
  }
  return chosen;
}

function normsFor(index: SearchIndex, b: number): Float32Array {
  let byB = normCache.get(index);
  if (byB === undefined) normCache.set(index, (byB = new Map()));
  let norms = byB.get(b);
  if (norms === undefined) {
    const width = GROUPS.length;
    norms = new Float32Array(index.groupLengths.length);
    for (let cell = 0; cell < norms.length; cell += 1) {
      norms[cell] = 1 / (1 - b + (b * index.groupLengths[cell]!) / index.averageLengths[cell % width]!);
    }
    byB.set(b, norms);
  }
  return norms;
}

// a bounded min-heap keeps the best `depth` of the touched tools without sorting them all
function best(touched: number[], scores: Float64Array, depth: number): FirstStageHit[] {
  const heap: FirstStageHit[] = [];
  const worse = (a: FirstStageHit, b: FirstStageHit): boolean =>
    a.score < b.score || (a.score === b.score && a.position > b.position);
  for (const position of touched) {
    const hit = { position, score: scores[position]! };
    if (heap.length < depth) {
      heap.push(hit);
      siftUp(heap, heap.length - 1, worse);
    } else if (worse(heap[0]!, hit)) {
      heap[0] = hit;
      siftDown(heap, 0, worse);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}

type Order = (a: FirstStageHit, b: FirstStageHit) => boolean;

function siftUp(heap: FirstStageHit[], at: number, worse: Order): void {
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!worse(heap[at]!, heap[parent]!)) return;
    [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
    at = parent;
  }
}

function siftDown(heap: FirstStageHit[], at: number, worse: Order): void {
  for (;;) {
    const left = 2 * at + 1;
    const right = left + 1;
    let least = at;
    if (left < heap.length && worse(heap[left]!, heap[least]!)) least = left;
    if (right < heap.length && worse(heap[right]!, heap[least]!)) least = right;
    if (least === at) return;
    [heap[at], heap[least]] = [heap[least]!, heap[at]!];
    at = least;
  }
}
