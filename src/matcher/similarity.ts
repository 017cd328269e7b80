import { runToEnd } from '../core/index.js';
import type { QueryWord } from './request-words.js';
import type { SearchIndex } from './search-index.js';
import { DESCRIBING_FIELDS, NAMING_FIELDS, PARAM_FIELDS, type RecordNumbers, type TermDictionary } from './tool-record.js';
import { wordVectors, type WordVectors } from './word-vector-file.js';

/**
 * How near in meaning a request and a tool are: the cosine of their word vectors (English GloVe vectors by the
 * matcher's own stem, `assets/word-vectors`), each text's vector the sum of its words' unit vectors weighted down by
 * how common the word is (SIF). The re-rank adds it, weighted, to the score of the tools the words already found: it
 * re-orders the candidates and never adds one, so what the first stage found (and whether anything matches at all)
 * stays the words' business; only where the words find nothing does the vector stage (`vector-stage.ts`) offer a tool
 * by it, and only one that stands out from every tool's cosine. A request word without a vector stands in it by the
 * English sense the matcher took it for (a borrowed word's registry stem, a Chinese word's common sense); a request in
 * another language than English counts for as much of its cosine as its vector stands for of its words. A request or
 * tool with no English word or sense in the table has no vector: 0.
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
// A registry of at most this many tools has every tool's vector made before a server says matching is ready
// (`toolVectorSteps`): made the first time a request brought the tool up, they were most of the first pass's cost
// after a start (p99 2.13 ms against 0.58 ms before the re-rank by meaning at 3,148 tools, issue #18). Each costs
// ~20-30 µs of CPU (~60-95 ms at 3,148 tools, ~0.2 s at 10,000, 400 bytes each); at 100,000 the 2-3 s would push a
// warm start's matching ready (goal ≤ 1 s) far out, and there they are made as requests bring the tools up.
export const MAX_PREPARED_TOOLS = 10_000;
// tool vectors kept, at most (their memory: 16,384 × ~500 bytes = ~8 MB); past it, forgotten all at once and made again
// as they are needed. Room for a prepared registry and a rescan's changed tools beside it.
const MAX_KEPT_VECTORS = 16_384;

/**
 * Per record's numbers (a tool's analysis, in its engine's dictionary: what its vector is made of), the tool vector
 * made (null: none of its terms has a vector). The numbers are the very same array in every index version that keeps
 * the tool (an update keeps the record, a compaction renumbers it over the same numbers), so a rescan's successor
 * takes the unchanged tools' vectors over without asking.
 */
let toolVectors = new WeakMap<RecordNumbers, Float32Array | null>();
let keptVectors = 0;
/** Per dictionary: each term id's row in the table (-1: none; -2: not looked up yet), grown as the dictionary grows. */
const termRows = new WeakMap<TermDictionary, Int32Array>();

/**
 * The scorer for one request over `index`'s tools (`foreign`: the request is not in English); one that answers 0 when
 * no word of the request has a vector, nor an English sense with one.
 */
export function similarityScorer(index: SearchIndex, words: readonly QueryWord[], foreign: boolean): SimilarityScorer {
  const table = wordVectors();
  if (table === undefined) return NONE;
  const made = requestVector(table, words, foreign);
  if (made === undefined) return NONE;
  const { vector: request, share } = made;
  return {
    similarity(position) {
      const vector = toolVectorAt(index, position, table);
      if (vector === null) return 0;
      let dot = 0;
      for (let at = 0; at < request.length; at++) dot += request[at]! * vector[at]!;
      return dot * share;
    },
  };
}

/**
 * The cosine of the request's vector with every tool's, by position (NaN: the tool has no vector), for the vector
 * stage; undefined when the request has no vector. Every tool's vector is made here if it was not (a server made them
 * before it said matching is ready; `hldp match` makes them at its first request that reaches the stage), the same way
 * whenever it is made: the cosines do not depend on what was asked before. The request's share (a request not in
 * English) scales every cosine alike, which the stage's statistic does not see: it is left out.
 */
export function cosinesOf(index: SearchIndex, words: readonly QueryWord[], foreign: boolean): Float64Array | undefined {
  const table = wordVectors();
  if (table === undefined) return undefined;
  const request = requestVector(table, words, foreign)?.vector;
  if (request === undefined) return undefined;
  const { rows, has } = matrices.get(index) ?? runToEnd(toolMatrixSteps(index, table));
  const dimensions = request.length;
  const cosines = new Float64Array(index.records.length);
  for (let position = 0; position < cosines.length; position++) {
    if (has[position] === 0) {
      cosines[position] = Number.NaN;
      continue;
    }
    const base = position * dimensions;
    let dot = 0;
    for (let at = 0; at < dimensions; at++) dot += request[at]! * rows[base + at]!;
    cosines[position] = dot;
  }
  return cosines;
}

/** Every tool's vector of one search index in one array, a row per position (`has`: 0 where the tool has none). */
interface ToolMatrix {
  rows: Float32Array;
  has: Uint8Array;
}

// Per search index (its positions are its own: an update makes a new one), its tools' vectors in one array: the vector
// stage reads every one of them, and a pass over a WeakMap of them took ~5 ms of CPU at 10,000 tools (load ~28) against
// ~2 ms over this. 400 bytes a tool: 4 MB at 10,000.
const matrices = new WeakMap<SearchIndex, ToolMatrix>();

// the matrix of `index`'s tools, made a few tools at a time (a tool's vector made where it was not)
function* toolMatrixSteps(index: SearchIndex, table: WordVectors): Generator<void, ToolMatrix, void> {
  const count = index.records.length;
  const rows = new Float32Array(count * table.dimensions);
  const has = new Uint8Array(count);
  for (let position = 0; position < count; position++) {
    if (position % VECTOR_STEP === VECTOR_STEP - 1) yield;
    const vector = toolVectorAt(index, position, table);
    if (vector === null) continue;
    rows.set(vector, position * table.dimensions);
    has[position] = 1;
  }
  const matrix = { rows, has };
  matrices.set(index, matrix);
  return matrix;
}

/**
 * Makes the vector of each of `index`'s tools that has none yet (all of them at most `MAX_PREPARED_TOOLS`), stopping
 * every few tools: a server runs it before it says matching is ready, and after a rescan's update (only the changed
 * tools are made: the others are taken over). The answers are the same with or without it: a vector is made the
 * same way when a request first needs it. Returns how many it made.
 */
export function* toolVectorSteps(index: SearchIndex): Generator<void, number, void> {
  // past the bound the table is not read here either: a large registry's start is as it was
  if (index.records.length > MAX_PREPARED_TOOLS) return 0;
  const table = wordVectors();
  if (table === undefined) return 0;
  let made = 0;
  for (let position = 0; position < index.records.length; position++) {
    if (position % VECTOR_STEP === VECTOR_STEP - 1) yield;
    if (toolVectors.has(index.records.at(position)!.data)) continue;
    toolVectorAt(index, position, table);
    made += 1;
  }
  // and the vector stage's matrix of them, so that a server's first request that reaches the stage makes nothing
  if (!matrices.has(index)) yield* toolMatrixSteps(index, table);
  return made;
}

// tools whose vectors are made between two stops (~1-2 ms)
const VECTOR_STEP = 64;

/** Whether the tool at `position` has its vector made (or is known to have none): for tests. */
export function hasToolVector(index: SearchIndex, position: number): boolean {
  return toolVectors.has(index.records.at(position)!.data);
}

// the vector of the tool at `position`, made and kept the first time it is asked for
function toolVectorAt(index: SearchIndex, position: number, table: WordVectors): Float32Array | null {
  const { data } = index.records.at(position)!;
  let vector = toolVectors.get(data);
  if (vector === undefined) {
    vector = toolVector(index, position, table);
    if (keptVectors >= MAX_KEPT_VECTORS) {
      toolVectors = new WeakMap();
      keptVectors = 0;
    }
    toolVectors.set(data, vector);
    keptVectors += 1;
  }
  return vector;
}

// A translation is less sure than the word itself: a word without a vector of its own stands in the request's vector
// by its sense at this weight, as the first stage searches a sense at half a word's weight (rank.ts)
const SENSE_WEIGHT = 0.5;

/** A request's vector (a unit vector) and the share of the request's words it stands for, as its cosine counts. */
interface RequestVector {
  vector: Float32Array;
  share: number;
}

// The request's words with a vector (their first term: the stem), and each word without one by its sense; undefined
// when none has either. Issue #11: in a Spanish or German request the words with a vector were an English word left
// in it, a name, or a word spelled like a rare English one (fahr, bien), and that one decided the vector — the re-rank
// undid what the loanword bridge found (es/de held-out hit@3 0.182/0.273 with it, 0.227/0.364 without). So in a request
// not in English the cosine counts as much as the vector stands for of its words (a sense for SENSE_WEIGHT of one);
// an English request's words nearly all have vectors, and it keeps its cosine whole.
function requestVector(table: WordVectors, words: readonly QueryWord[], foreign: boolean): RequestVector | undefined {
  const sum = new Float64Array(table.dimensions);
  let represented = 0;
  for (const word of words) represented += addWord(table, sum, word);
  if (represented === 0) return undefined;
  const vector = unit(sum);
  return vector === undefined ? undefined : { vector, share: foreign ? represented / words.length : 1 };
}

// Adds a request word to `sum`: by its own vector (and answers 1), else by its first sense when that is the word's
// common meaning — the registry stem the loanword bridge spelled it as, CC-CEDICT's first sense of a Chinese word, not
// a sense guessed from its parts — at SENSE_WEIGHT (and answers that); 0 when it has neither
function addWord(table: WordVectors, sum: Float64Array, word: QueryWord): number {
  const row = table.idOf(word.terms[0]!);
  if (row !== undefined) {
    table.addTo(sum, row, table.weightOf(row));
    return 1;
  }
  const { senses, common } = word.glosses;
  if (common === 0 || senses.length === 0) return 0;
  const sense = senses[0]!;
  let added = false;
  for (const stem of sense) {
    const senseRow = table.idOf(stem);
    if (senseRow === undefined) continue;
    // a sense of several words (brush teeth) is one word's meaning: its words share the word's weight
    table.addTo(sum, senseRow, (SENSE_WEIGHT * table.weightOf(senseRow)) / sense.length);
    added = true;
  }
  return added ? SENSE_WEIGHT : 0;
}

function toolVector(index: SearchIndex, position: number, table: WordVectors): Float32Array | null {
  const record = index.records.at(position)!;
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
