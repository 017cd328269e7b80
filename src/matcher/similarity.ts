import type { QueryWord } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { DESCRIBING_FIELDS, NAMING_FIELDS, PARAM_FIELDS, type TermDictionary } from './tool-record.js';
import { wordVectors, type WordVectors } from './word-vector-file.js';

/**
 * How near in meaning a request and a tool are: the cosine of their word vectors (English GloVe vectors by the
 * matcher's own stem, `assets/word-vectors`), each text's vector the sum of its words' unit vectors weighted down by
 * how common the word is (SIF). The re-rank adds it, weighted, to the score of the tools the words already found:
 * it re-orders the candidates and never adds one, so what the first stage found (and whether anything matches at
 * all) stays the words' business. A request or tool with no English word in the table has no vector: 0.
 */
export interface SimilarityScorer {
  /** the cosine of the request's vector with the tool's at `position`, -1..1; 0 when either has none */
  similarity(position: number): number;
}

const NONE: SimilarityScorer = { similarity: () => 0 };

// the fields whose words make a tool's vector: what names it, describes it and its parameters (not `why` or `group`)
const VECTOR_FIELDS = NAMING_FIELDS | DESCRIBING_FIELDS | PARAM_FIELDS;
// a tool's vector reads at most this many of its terms (a definition's text is anyone's with push access: one of
// 100,000 words would cost ~10 ms of vector sums at every request it comes up for)
const MAX_TOOL_TERMS = 512;
// tool vectors kept per search index version, the tools requests bring up most: 2,048 × 100 float32 = ~0.9 MB
const MAX_KEPT_TOOLS = 2048;

/** Per search index version: the tool vectors made (by position; null: none of its terms has a vector). */
const toolVectors = new WeakMap<SearchIndex, Map<number, Float32Array | null>>();
/** Per dictionary: each term id's row in the table (-1: none; -2: not looked up yet), grown as the dictionary grows. */
const termRows = new WeakMap<TermDictionary, Int32Array>();

/** The scorer for one request over `index`'s tools; one that answers 0 when the request has no English word with a vector. */
export function similarityScorer(index: SearchIndex, words: readonly QueryWord[]): SimilarityScorer {
  const table = wordVectors();
  if (table === undefined) return NONE;
  const request = requestVector(table, words);
  if (request === undefined) return NONE;
  let kept = toolVectors.get(index);
  if (kept === undefined) toolVectors.set(index, (kept = new Map()));
  const tools = kept;
  return {
    similarity(position) {
      let vector = tools.get(position);
      if (vector === undefined) {
        vector = toolVector(index, position, table);
        if (tools.size >= MAX_KEPT_TOOLS) tools.clear();
        tools.set(position, vector);
      }
      if (vector === null) return 0;
      let dot = 0;
      for (let at = 0; at < request.length; at++) dot += request[at]! * vector[at]!;
      return dot;
    },
  };
}

// the request's words (their first term: the stem) with a vector, as a unit vector; undefined when none has one
function requestVector(table: WordVectors, words: readonly QueryWord[]): Float32Array | undefined {
  const sum = new Float64Array(table.dimensions);
  let any = false;
  for (const word of words) {
    const row = table.idOf(word.terms[0]!);
    if (row === undefined) continue;
    table.addTo(sum, row, table.weightOf(row));
    any = true;
  }
  return any ? unit(sum) : undefined;
}

function toolVector(index: SearchIndex, position: number, table: WordVectors): Float32Array | null {
  const record = index.records[position]!;
  const ids = record.termIds();
  const masks = record.termFieldMasks();
  const dictionary = index.engine.dictionary;
  const rows = rowsOf(dictionary);
  const sum = new Float64Array(table.dimensions);
  let read = 0;
  let any = false;
  for (let at = 0; at < ids.length && read < MAX_TOOL_TERMS; at++) {
    if ((masks[at]! & VECTOR_FIELDS) === 0) continue;
    read++;
    const id = ids[at]!;
    let row = rows[id]!;
    if (row === -2) rows[id] = row = table.idOf(dictionary.terms[id]!) ?? -1;
    if (row < 0) continue;
    table.addTo(sum, row, table.weightOf(row));
    any = true;
  }
  return any ? (unit(sum) ?? null) : null;
}

// the term rows of a dictionary, grown to its size (terms are only ever added to a dictionary, never taken back)
function rowsOf(dictionary: TermDictionary): Int32Array {
  let rows = termRows.get(dictionary);
  if (rows === undefined || rows.length < dictionary.terms.length) {
    const grown = new Int32Array(Math.max(dictionary.terms.length, Math.ceil((rows?.length ?? 0) * 1.5))).fill(-2);
    if (rows !== undefined) grown.set(rows);
    termRows.set(dictionary, (rows = grown));
  }
  return rows;
}

function unit(sum: Float64Array): Float32Array | undefined {
  let norm = 0;
  for (let at = 0; at < sum.length; at++) norm += sum[at]! * sum[at]!;
  if (norm === 0) return undefined;
  norm = Math.sqrt(norm);
  const vector = new Float32Array(sum.length);
  for (let at = 0; at < sum.length; at++) vector[at] = sum[at]! / norm;
  return vector;
}
