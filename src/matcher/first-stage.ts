import type { RankingParameters } from './ranking-parameters.js';
import { FIELD_COUNT, type Postings } from './postings.js';
import type { NarrowArray } from './narrow-array.js';
import { FIELD_GROUPS, SEARCH_FIELDS, type FieldGroup } from './search-document.js';
import type { SearchIndex } from './search-index.js';

/** A term of the request as the first stage reads it: its weight relative to a plain content word. */
export interface WeightedTerm {
  term: string;
  weight: number;
  /**
   * Which request word it is a term of (its terms in that word's order: the word, its parts, its senses);
   * without it, the term is a word of its own
   */
  word?: number;
}

/** One tool the first stage found, with its BM25 score. */
export interface FirstStageHit {
  position: number;
  score: number;
}

// one boost per field, from the fitted boosts per field group (0 reads as 1, as minisearch read it)
const fieldBoosts = new WeakMap<Record<FieldGroup, number>, Float64Array>();

// scratch reused by every search: per field, the term's inverse document frequency and weight; the best tools so far
const rarities = new Float64Array(FIELD_COUNT);
const fieldWeights = new Float64Array(FIELD_COUNT);
let bestScores = new Float64Array(32);
let bestPositions = new Int32Array(32);

/**
 * BM25+ over the tools' fields (per field, weighted by its group's boost), each term weighted by the request; the
 * best `depth` tools come back, best first (ties by position). The scores are minisearch's to the last bit (the
 * test suite holds them to a fresh minisearch over the same tools): the same formula, the same order of operations
 * (per term, a tool's fields in order; then the terms in the request's order; then × the number of terms matched).
 */
export function firstStage(index: SearchIndex, parameters: RankingParameters, terms: WeightedTerm[]): FirstStageHit[] {
  const chosen = choose(index, terms, parameters);
  if (chosen.size === 0) return [];
  const { postings, dictionary } = index.engine;
  const { starts, lengths, moved, fieldCounts } = postings;
  const boosts = boostsFor(parameters.boosts);
  const { k, b, d } = parameters.bm25;
  const documents = index.tools.length;
  let touchedCount = 0;
  for (const [term, termBoost] of chosen) {
    const id = dictionary.idOf(term);
    if (id === undefined || id >= lengths.length) continue;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const matching = fieldCounts[id * FIELD_COUNT + field]!;
      rarities[field] = Math.log(1 + (documents - matching + 0.5) / (matching + 0.5));
      fieldWeights[field] = termBoost * boosts[field]!;
    }
    // a list still in the kept index file is read (and checked) now, where the file's whole were at a start
    postings.readList(id);
    const start = starts[id]!;
    const moveds = moved[id] === 1;
    touchedCount = scoreList(postings, moveds ? postings.movedSlots : postings.slots, moveds ? postings.movedCodes : postings.codes, start, start + lengths[id]!, index.averageFieldLengths, k, b, d, touchedCount);
  }
  return best(index, touchedCount, parameters.depth);
}

// One term's list from `start` to `end` added to the tools' scores (those it touches first noted after `touchedCount`);
// returns the touched count. A function of its own, apart from the term choice and the list read: the first requests
// after a start run this loop over lists of up to every tool while V8 compiles it, and TurboFan compiled firstStage
// whole (its Maps, its sort, the kept file's read inlined) in 80-150 ms of a compiler thread, twice, the first entered
// mid-loop and dropped at the loop's end (issue #18); this one it compiles in a few.
function scoreList(postings: Postings, slots: Int32Array, codes: NarrowArray, start: number, end: number, averages: Float64Array, k: number, b: number, d: number, touchedCount: number): number {
  const { fieldLengths, alive, scores, matched, touched } = postings;
  // a tool's entries for one term are side by side: its score for the term is summed before it joins its total
  let current = -1;
  let termScore = 0;
  for (let at = start; at <= end; at++) {
    const slot = at === end ? -1 : slots[at]!;
    if (slot !== -1 && alive[slot] === 0) continue;
    if (slot !== current && current !== -1) {
      if (matched[current] === 0) {
        touched[touchedCount++] = current;
        scores[current] = termScore;
      } else scores[current] = scores[current]! + termScore;
      matched[current]! += 1;
    }
    if (slot === -1) break;
    const code = codes[at]!;
    const field = code & 15;
    const termFreq = code >>> 4;
    const fieldLength = fieldLengths[slot * FIELD_COUNT + field]!;
    const avgFieldLength = averages[field]!;
    // minisearch's calcBM25Score, written as it is
    const rawScore = rarities[field]! * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
    const weightedScore = fieldWeights[field]! * rawScore;
    if (slot === current) termScore += weightedScore;
    else {
      current = slot;
      termScore = weightedScore;
    }
  }
  return touchedCount;
}

// The best `depth` of the touched tools by score, then position, kept in a small sorted array (no sort of every hit);
// the scratch is cleared on the way.
function best(index: SearchIndex, touchedCount: number, depth: number): FirstStageHit[] {
  const { scores, matched, touched } = index.engine.postings;
  const positions = index.slotPositions;
  if (depth > bestScores.length) {
    bestScores = new Float64Array(depth);
    bestPositions = new Int32Array(depth);
  }
  let filled = 0;
  for (let at = 0; at < touchedCount; at++) {
    const slot = touched[at]!;
    const score = scores[slot]! * matched[slot]!;
    const position = positions[slot]!;
    scores[slot] = 0;
    matched[slot] = 0;
    if (depth <= 0) continue;
    if (filled === depth) {
      const lastScore = bestScores[filled - 1]!;
      if (score < lastScore || (score === lastScore && position > bestPositions[filled - 1]!)) continue;
      filled -= 1;
    }
    let place = filled;
    while (place > 0 && (bestScores[place - 1]! < score || (bestScores[place - 1] === score && bestPositions[place - 1]! > position))) {
      bestScores[place] = bestScores[place - 1]!;
      bestPositions[place] = bestPositions[place - 1]!;
      place -= 1;
    }
    bestScores[place] = score;
    bestPositions[place] = position;
    filled += 1;
  }
  const hits = new Array<FirstStageHit>(filled);
  for (let at = 0; at < filled; at++) hits[at] = { position: bestPositions[at]!, score: bestScores[at]! };
  return hits;
}

// The terms the first stage reads, within a latency bound: at most `maxTerms` of them, and no more once their tools
// fill the postings budget (a term that would overflow it is left out, unless it is the first). Each request word gets
// a say before any word gets a second: first every word's first term the index has, rarest first (frequent terms
// discriminate least, and the re-rank still counts all the request's words for the tools the rare ones found), then
// every word's second, and so on. A word's further terms are alternatives to its first — a Chinese word's characters,
// its senses in the dictionary's order — and ranking them by rarity would let one word's rare readings (间 as
// "among", 酒店 as "pub", each in a tool or two) fill every place before the request's other words are read at all. A
// term two words yield keeps the larger weight and the earlier turn.
function choose(index: SearchIndex, terms: WeightedTerm[], parameters: RankingParameters): Map<string, number> {
  const weights = new Map<string, number>();
  const turns = new Map<string, number>();
  const found = new Map<number, number>();
  for (const { term, weight, word } of terms) {
    if (!index.documentFrequency.has(term)) continue;
    const turn = word === undefined ? 0 : (found.get(word) ?? 0);
    if (word !== undefined) found.set(word, turn + 1);
    weights.set(term, Math.max(weight, weights.get(term) ?? 0));
    turns.set(term, Math.min(turn, turns.get(term) ?? turn));
  }
  const frequency = (term: string): number => index.documentFrequency.get(term)!;
  const usable = [...weights.keys()].sort((a, b) => turns.get(a)! - turns.get(b)! || frequency(a) - frequency(b));
  const chosen = new Map<string, number>();
  let postings = 0;
  for (const term of usable) {
    if (chosen.size === parameters.maxTerms) break;
    if (chosen.size > 0 && postings + frequency(term) > parameters.postingsBudget) continue;
    postings += frequency(term);
    chosen.set(term, weights.get(term)!);
  }
  return chosen;
}

function boostsFor(groups: Record<FieldGroup, number>): Float64Array {
  let boosts = fieldBoosts.get(groups);
  if (boosts === undefined) {
    boosts = new Float64Array(FIELD_COUNT).fill(1);
    for (const [group, fields] of Object.entries(FIELD_GROUPS)) {
      for (const field of fields) boosts[SEARCH_FIELDS.indexOf(field)] = groups[group as FieldGroup] || 1;
    }
    fieldBoosts.set(groups, boosts);
  }
  return boosts;
}
