import { runLettingGo, runToEnd, toolNameAt } from '../core/index.js';
import type { ToolSequence } from '../core/index.js';
import { streamedPostingsSteps, type WritablePostings } from './compacted-postings.js';
import { FIELD_COUNT, Postings, type StoredPostings } from './postings.js';
import { largest, wholeOf, type NarrowArray, type StreamedArray } from './narrow-array.js';
import { DocumentFrequency, slotsOf, snapshot, type SearchEngine, type SearchIndex } from './search-index.js';
import { TermDictionary, type RecordNumbers } from './tool-record.js';
import { RecordFile } from './record-file.js';
import { ToolRecords } from './tool-records.js';

/** A search index as kept on disk: everything but the tools, which it is restored over (by position and name). */
export interface StoredSearchIndex {
  /**
   * the tools' names in order as one string, each followed by a line feed (`joinNames`): read as one string, compared in
   * place (issue #18: 100,000 strings deserialised, compared and collected at each restart)
   */
  names: string;
  /** the postings, tight, each tool's slot its position */
  postings: StoredPostings;
  /** the engine's dictionary: each term at its id */
  terms: string[];
  /** per term id, in how many tools it occurs */
  counts: Int32Array;
  /** the records' numbers one after another: the record at position p is `data[offsets[p]..offsets[p + 1]]` */
  offsets: Int32Array;
  /** 16 bits each when every record's numbers fit; read from the file a record at a time, where it was read from one */
  data: RecordNumbers | RecordFile;
}

/** What of a search index is kept on disk. */
export function storeSearchIndex(index: SearchIndex): StoredSearchIndex {
  const { postings, data, ...rest } = searchIndexToWrite(index);
  return { ...rest, postings: { ...postings, slots: wholeOf(postings.slots) as Int32Array, codes: wholeOf(postings.codes) }, data: wholeOf(data) as RecordNumbers };
}

/** `StoredSearchIndex` as the file writer takes it: the entries of the postings and the records' numbers handed over a piece at a time. */
export type SearchIndexToWrite = Omit<StoredSearchIndex, 'postings' | 'data'> & { postings: WritablePostings; data: StreamedArray };

/**
 * What of a search index is kept on disk, for the file: the postings' entries and the records' numbers, most of it,
 * read a piece at a time from where they lie as the file is written, never copied whole (issue #18: at 100,000 tools
 * a write made ~100 MB of copies beside the index, the peak of a start onto a newer commit). The index must not
 * change until the file is written.
 */
export function searchIndexToWrite(index: SearchIndex): SearchIndexToWrite {
  return runToEnd(searchIndexToWriteSteps(index));
}

// tools between two steps of the passes over every tool
const TOOLS_PER_STEP = 4096;

/** `searchIndexToWrite` a step at a time, for a server that writes its file while it answers (passes over every tool and entry). */
export function* searchIndexToWriteSteps(index: SearchIndex): Generator<void, SearchIndexToWrite, void> {
  const { records } = index;
  const { dictionary, documentFrequency } = index.engine;
  const offsets = new Int32Array(records.length + 1);
  for (let position = 0; position < records.length; position++) {
    offsets[position + 1] = offsets[position]! + records.sizeAt(position);
    if (position % TOOLS_PER_STEP === 0) yield;
  }
  let wide = false;
  let seen = 0;
  for (const record of records) {
    if (record.data instanceof Int32Array && largest(record.data) > 0xffff) wide = true;
    if (++seen % TOOLS_PER_STEP === 0) yield;
  }
  const total = offsets[records.length]!;
  const named: string[] = [];
  for (let position = 0; position < index.tools.length; position++) {
    named.push(toolNameAt(index.tools, position)!);
    if (position % TOOLS_PER_STEP === 0) yield;
  }
  const names = joinNames(named);
  const order = slotsOf(records);
  yield;
  const postings = yield* streamedPostingsSteps(index.engine.postings, order);
  return {
    names,
    postings,
    terms: dictionary.terms.slice(),
    counts: documentFrequency.counts.slice(0, dictionary.terms.length),
    offsets,
    data: { length: total, width: wide ? 4 : 2, pieces: () => recordPieces(records, wide ? new Int32Array(Math.min(PIECE, total)) : new Uint16Array(Math.min(PIECE, total))) },
  };
}

// the records' numbers one after another, in pieces of `piece`'s length
function* recordPieces(records: ToolRecords, piece: RecordNumbers): Generator<RecordNumbers, void, void> {
  let filled = 0;
  for (const { data } of records) {
    for (let from = 0; from < data.length; ) {
      const count = Math.min(data.length - from, piece.length - filled);
      piece.set(data.subarray(from, from + count), filled);
      filled += count;
      from += count;
      if (filled < piece.length) continue;
      yield piece;
      filled = 0;
    }
  }
  if (filled > 0) yield piece.subarray(0, filled);
}

// numbers handed over in one piece
const PIECE = 1 << 16;

/** The search index kept for exactly these tools, over them; undefined when it was kept for other tools. */
export function restoreSearchIndex(stored: StoredSearchIndex, tools: ToolSequence): SearchIndex | undefined {
  return runToEnd(restoreSearchIndexSteps(stored, tools));
}

/**
 * `restoreSearchIndex` for a server that already answers: the arrays were read from the file in libuv's threads, and
 * what is left (the names compared, the dictionary's map, a view per record) is made a slice at a time.
 */
export function restoreSearchIndexLettingGo(stored: StoredSearchIndex, tools: ToolSequence): Promise<SearchIndex | undefined> {
  return runLettingGo(restoreSearchIndexSteps(stored, tools));
}

function* restoreSearchIndexSteps(stored: StoredSearchIndex, tools: ToolSequence): Generator<void, SearchIndex | undefined, void> {
  if (!(yield* keptForSteps(stored, tools))) return undefined;
  const dictionary = yield* TermDictionary.restoringSteps(stored.terms);
  // a record is made when first asked for, its numbers read from the file then (or a view of the array they were read
  // into); its slot in the postings is its position. The tools are not made: an update asks this version for them by position
  const records = ToolRecords.kept(stored.data, stored.offsets, dictionary);
  const engine: SearchEngine = {
    postings: new Postings(stored.postings),
    dictionary,
    documentFrequency: new DocumentFrequency(dictionary, stored.counts),
    version: 0,
  };
  yield;
  return snapshot(engine, tools, records);
}

const LINE_FEED = '\n';

/**
 * The tools' names as a kept index holds them: one string, each name followed by a line feed. A name with a line feed
 * (which a scan never lets through: a tool's name is ASCII letters, digits, '.', '_' and '-') throws: the index is not
 * kept, rather than kept where its names could be read apart otherwise.
 */
export function joinNames(names: readonly string[]): string {
  for (const name of names) if (name.includes(LINE_FEED)) throw new Error(`search index: the tool name ${JSON.stringify(name)} has a line feed`);
  return names.length === 0 ? '' : `${names.join(LINE_FEED)}${LINE_FEED}`;
}

/** The names of `joinNames`, one string each. */
export const splitNames = (joined: string): string[] => (joined === '' ? [] : joined.slice(0, -1).split(LINE_FEED));

// records made (or names compared) between two stops of a restore
const RESTORE_STEP = 8192;

// kept for these tools, and of this layout (a file of another layout is a miss, never misread)
function* keptForSteps(stored: StoredSearchIndex, tools: ToolSequence): Generator<void, boolean, void> {
  const { names, offsets, postings, terms, counts, data } = stored;
  if (typeof names !== 'string' || !Array.isArray(terms) || !(offsets instanceof Int32Array) || !(recordNumbers(data) || data instanceof RecordFile) || !(counts instanceof Int32Array)) return false;
  if (offsets.length !== tools.length + 1 || !postingsFit(postings, tools.length, terms.length)) return false;
  let at = 0;
  for (let from = 0; from < tools.length; from += RESTORE_STEP) {
    if (from > 0) yield;
    at = namesAt(names, at, tools, from, Math.min(tools.length, from + RESTORE_STEP));
    if (at < 0) return false;
  }
  return at === names.length;
}

// Whether tools from..to are named in `names` from `at`, each name then a line feed: where the next one starts, or -1.
// A plain function, not the generator's loop (V8 optimises a generator's loop late).
function namesAt(names: string, at: number, tools: ToolSequence, from: number, to: number): number {
  for (let position = from; position < to; position++) {
    const name = toolNameAt(tools, position);
    if (name === undefined || !names.startsWith(name, at)) return -1;
    at += name.length;
    // the name ends here: the kept one has no more to it (and this one no line feed that would pass for its end)
    if (names.indexOf(LINE_FEED, at - name.length) !== at) return -1;
    at += 1;
  }
  return at;
}

function postingsFit(postings: StoredPostings | undefined, tools: number, terms: number): boolean {
  if (typeof postings !== 'object' || postings === null) return false;
  const { starts, lengths, fieldCounts, slots, codes, fieldLengths } = postings;
  if (![starts, lengths, fieldCounts, slots].every((array) => array instanceof Int32Array) || !narrowArray(codes) || !narrowArray(fieldLengths)) return false;
  return starts.length === lengths.length && lengths.length >= terms && fieldCounts.length === lengths.length * FIELD_COUNT && slots.length === codes.length && fieldLengths.length === tools * FIELD_COUNT;
}

const recordNumbers = (array: unknown): array is RecordNumbers => array instanceof Uint16Array || array instanceof Int32Array;
const narrowArray = (array: unknown): array is NarrowArray => array instanceof Uint8Array || recordNumbers(array);
