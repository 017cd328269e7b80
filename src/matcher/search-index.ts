import { runLettingGo, runToEnd, sameToolsAt, toolNameAt } from '../core/index.js';
import type { ToolDefinition, ToolSequence } from '../core/index.js';
import { compactedPostingsSteps, renumbering, streamedPostingsSteps, type TightPostings, type WritablePostings } from './compacted-postings.js';
import { FIELD_COUNT, Postings, type StoredPostings } from './postings.js';
import { largest, wholeOf, type NarrowArray, type StreamedArray } from './narrow-array.js';
import { describeTool, TermDictionary, ToolRecord, type RecordNumbers } from './tool-record.js';
import { RecordFile } from './record-file.js';
import { ToolRecords } from './tool-records.js';

/** In how many tools each term occurs (terms no tool has now: none). */
export interface TermCounts {
  has(term: string): boolean;
  get(term: string): number | undefined;
}

/** Term counts kept per term id of the engine's dictionary. */
class DocumentFrequency implements TermCounts {
  constructor(
    readonly dictionary: TermDictionary,
    public counts: Int32Array = new Int32Array(Math.max(64, dictionary.terms.length)),
  ) {}

  has(term: string): boolean {
    const id = this.dictionary.idOf(term);
    return id !== undefined && id < this.counts.length && this.counts[id]! > 0;
  }

  get(term: string): number | undefined {
    const id = this.dictionary.idOf(term);
    if (id === undefined || id >= this.counts.length) return undefined;
    const count = this.counts[id]!;
    return count > 0 ? count : undefined;
  }

  add(ids: ArrayLike<number>, change: 1 | -1): void {
    if (this.dictionary.terms.length > this.counts.length) {
      const grown = new Int32Array(Math.max(64, this.dictionary.terms.length, this.counts.length * 2));
      grown.set(this.counts);
      this.counts = grown;
    }
    for (let at = 0; at < ids.length; at++) this.counts[ids[at]!]! += change;
  }
}

/**
 * The first stage's postings and term statistics that a line of index versions shares: an update changes
 * them in place, so only the version it made may read them afterwards.
 */
interface SearchEngine {
  postings: Postings;
  /** the ids of the terms the engine's records hold */
  dictionary: TermDictionary;
  /** in how many tools each term occurs */
  documentFrequency: DocumentFrequency;
  /** the version whose tools the engine holds now */
  version: number;
}

/** The search structures of one index version: postings of the tools' fields, and each tool's record. */
export interface SearchIndex {
  /** the tools, by position: a few are read per request (the candidates), none is held by the index */
  tools: ToolSequence;
  /** per position in `tools`, what the re-rank knows of the tool (a restored index's made when first asked for) */
  records: ToolRecords;
  /** per slot in the postings (a record's id), its position in `tools` (-1: none in this version) */
  slotPositions: Int32Array;
  /**
   * per field, the tools' average length as minisearch's running average makes it when the tools are added in
   * this order (a fresh build's: an update that removed tools does not carry minisearch's drift)
   */
  averageFieldLengths: Float64Array;
  documentFrequency: TermCounts;
  /** inverse document frequencies read so far (of terms the index has), kept for this version only */
  rarity: Map<string, number>;
  /** per position, the rarity of each word of each of the tool's intents, worked out on first use */
  intentRarity: Array<Float64Array[] | undefined>;
  engine: SearchEngine;
  version: number;
}

/** Analyses every tool and indexes it. */
export function buildSearchIndex(tools: ToolSequence): SearchIndex {
  return runToEnd(buildSearchIndexSteps(tools));
}

/**
 * `buildSearchIndex`, stopping every few tools (a server builds its first index a slice at a time while it already
 * answers calls by name). The structures are new and private until the end, so stopping anywhere is safe.
 */
export function* buildSearchIndexSteps(tools: ToolSequence): Generator<void, SearchIndex, void> {
  const dictionary = new TermDictionary();
  const engine: SearchEngine = { postings: new Postings(), dictionary, documentFrequency: new DocumentFrequency(dictionary), version: 0 };
  const records: ToolRecord[] = [];
  for (let position = 0; position < tools.length; position++) {
    if (position % BUILD_STEP === BUILD_STEP - 1) yield;
    records.push(index(engine, tools.at(position)!));
  }
  // the lists' room to grow (up to as much again) given back: slots are positions already
  const { postings } = engine;
  const tight = yield* compactedPostingsSteps(postings, renumbering(slotsOf(records), postings.slotCount), records.length);
  postings.adopt({ ...tight, fieldCounts: postings.fieldCounts });
  return snapshot(engine, tools, ToolRecords.of(records));
}

// tools analysed and indexed between two stops of a build (each a fraction of a millisecond)
const BUILD_STEP = 16;

/**
 * The search structures for `tools`, made from those of a previous version by analysing and indexing
 * only the tools that are not the very same objects as before, and removing the ones gone. The
 * previous version's structures are updated in place: from now on only the returned version may be
 * searched (`isCurrent` tells). A previous version that is no longer current is not updated: the
 * index is built afresh.
 */
export function updateSearchIndex(previous: SearchIndex, tools: ToolSequence): SearchIndex {
  return runToEnd(updateSearchIndexSteps(previous, tools));
}

/**
 * `updateSearchIndex`, stopping every few thousand tools or entries while it only reads (a server's rescan runs it a
 * slice at a time). When the postings are due a compaction (dead tools' entries dropped, the slots renumbered by
 * position), the kept tools' entries are copied into new tight arrays meanwhile, off to the side. The shared
 * structures change in one go at the end, with only the changed tools to index: a request served meanwhile by the
 * previous version never sees them half-updated.
 */
export function* updateSearchIndexSteps(previous: SearchIndex, tools: ToolSequence): Generator<void, SearchIndex, void> {
  const found = new Array<ToolRecord | undefined>(tools.length);
  const kept = new Set<ToolRecord>();
  let foundCount = 0;
  const same = previous.records.length === previous.tools.length ? sameToolsAt(previous.tools, tools) : undefined;
  if (same) {
    // a rescan's patch of a registry served from the scan cache: its unchanged tools told by position (where they moved, by
    // their line in the cache file), none made
    for (let position = 0; position < tools.length; position++) {
      if (position % STEP === STEP - 1) yield;
      const from = same(position);
      if (from < 0) continue;
      const record = previous.records.at(from)!;
      found[position] = record;
      kept.add(record);
      foundCount += 1;
    }
  } else {
    // the previous version's tools, asked for by position (its records do not hold them)
    const known = new Map<ToolDefinition, ToolRecord>();
    for (let position = 0; position < previous.records.length; position++) {
      if (position % STEP === STEP - 1) yield;
      known.set(previous.tools.at(position)!, previous.records.at(position)!);
    }
    // each tool read once: of a registry made from a scan cache, a tool is made when read, and not held
    for (let position = 0; position < tools.length; position++) {
      if (position % STEP === STEP - 1) yield;
      const record = known.get(tools.at(position)!);
      if (record === undefined) continue;
      found[position] = record;
      kept.add(record);
      foundCount += 1;
    }
  }
  const removed: ToolRecord[] = [];
  for (const record of previous.records) if (!kept.has(record)) removed.push(record);
  const added = tools.length - foundCount;
  // per position, the record of the tool of that name it replaces in its slot (none where a record is found twice)
  const replacing = foundCount === kept.size && removed.length > 0 && added > 0 ? yield* replacingSteps(previous, tools, found, kept) : new Map<number, ToolRecord>();
  const replaced = new Set(replacing.values());
  const room = foundCount === kept.size && added > 0 ? yield* addedRoomSteps(previous, tools, found, replacing) : undefined;
  const compaction =
    foundCount === kept.size && dueCompaction(previous, removed.filter((record) => !replaced.has(record)), added - replacing.size, room) ? yield* compactionSteps(previous, tools, found, removed, room?.entries) : undefined;
  // from here on nothing lets go
  if (!isCurrent(previous)) return buildSearchIndex(tools);
  const { engine } = previous;
  let records: ToolRecord[];
  if (compaction === undefined) {
    for (const record of removed) {
      if (replaced.has(record)) continue;
      // its entries stay until a compaction, skipped; the term counts are a fresh index's at once
      engine.postings.remove(record.id, record.termIds(), record.termFieldMasks());
      count(engine, record, -1);
    }
    records = Array.from({ length: tools.length }, (_, position) => {
      const before = replacing.get(position);
      return found[position] ?? (before === undefined ? index(engine, tools.at(position)!) : reindex(engine, tools.at(position)!, before));
    });
  } else {
    // the counts as the removals left them; a tool added takes the slot of its position, left empty for it
    engine.postings.adopt({ ...compaction.tight, fieldCounts: compaction.fieldCounts });
    engine.documentFrequency.counts = compaction.documentCounts;
    records = Array.from({ length: tools.length }, (_, position) => compaction.renumbered[position] ?? index(engine, tools.at(position)!, position));
  }
  engine.version += 1;
  return snapshot(engine, tools, ToolRecords.of(records));
}

// whether the update's removals and additions leave the postings worth compacting, or its additions would move lists
// holding more entries than a compaction copies: a list that outgrows its room moves with as much room again, so a
// tool whose words every tool has moved nearly every entry, the tight pool kept beside it (at 100,000 generated tools,
// a restart onto a commit that changed one of them held 146 MB of moved lists beside the 35 MB a fresh load holds)
function dueCompaction(previous: SearchIndex, removed: readonly ToolRecord[], added: number, room: AddedRoom | undefined): boolean {
  let removedEntries = 0;
  for (const record of removed) for (const mask of record.termFieldMasks()) removedEntries += bitCount(mask);
  const { postings } = previous.engine;
  return postings.wastefulAfter(removed.length, removedEntries, added) || (room !== undefined && postings.entriesMovedBy(room.growth) > Math.max(MOVED_AT_MOST, postings.entriesInUse() / 2));
}

// entries an update may move without a compaction however few the postings hold: a small registry's update keeps its
// records (a compaction renumbers them) and copies little either way
const MOVED_AT_MOST = 32_768;

/**
 * Per term id, the entries the tools `found` lacks will bring (as far as the analysis of each alone tells: a guess is
 * enough): a compaction's room for them, and by how much they grow each list, the entries of the tools they replace in
 * their slots taken out (whether adding them moves most lists).
 */
interface AddedRoom {
  entries: Int32Array;
  growth: Int32Array;
}

function* addedRoomSteps(previous: SearchIndex, tools: ToolSequence, found: ReadonlyArray<ToolRecord | undefined>, replacing: ReadonlyMap<number, ToolRecord>): Generator<void, AddedRoom, void> {
  const { postings, dictionary } = previous.engine;
  const entries = new Int32Array(postings.lengths.length);
  const growth = new Int32Array(postings.lengths.length);
  for (let position = 0; position < tools.length; position++) {
    if (found[position] !== undefined) {
      if (position % STEP === STEP - 1) yield;
      continue;
    }
    yield;
    const alone = describeTool(tools.at(position)!).record;
    const masks = alone.termFieldMasks();
    alone.termIds().forEach((term, at) => {
      const id = dictionary.idOf(alone.dictionary.terms[term]!);
      if (id === undefined || id >= entries.length) return;
      entries[id]! += bitCount(masks[at]!);
      growth[id]! += bitCount(masks[at]!);
    });
    const before = replacing.get(position);
    if (before === undefined) continue;
    const beforeMasks = before.termFieldMasks();
    before.termIds().forEach((id, at) => (growth[id]! -= bitCount(beforeMasks[at]!)));
  }
  return { entries, growth };
}

/**
 * Per position of a tool added, the record of the removed tool of the same name (a definition changed): its slot is
 * the new one's, its entries rewritten where they are. As long as finding their entries reads at most one pass over the
 * postings' entries (what a compaction copies): the tools past that get slots of their own.
 */
function* replacingSteps(previous: SearchIndex, tools: ToolSequence, found: ReadonlyArray<ToolRecord | undefined>, kept: ReadonlySet<ToolRecord>): Generator<void, Map<number, ToolRecord>, void> {
  const gone = new Map<string, ToolRecord>();
  for (let position = 0; position < previous.records.length; position++) {
    if (position % STEP === STEP - 1) yield;
    const record = previous.records.at(position)!;
    if (kept.has(record)) continue;
    const name = toolNameAt(previous.tools, position);
    if (name !== undefined) gone.set(name, record);
  }
  const replacing = new Map<number, ToolRecord>();
  const { postings } = previous.engine;
  let budget = postings.slots.length + postings.movedUsed;
  for (let position = 0; position < tools.length && gone.size > 0; position++) {
    if (position % STEP === STEP - 1) yield;
    if (found[position] !== undefined) continue;
    const name = toolNameAt(tools, position)!;
    const before = gone.get(name);
    if (before === undefined) continue;
    gone.delete(name);
    budget -= postings.replaceCost(before.termIds());
    if (budget < 0) break;
    replacing.set(position, before);
  }
  return replacing;
}

/**
 * The postings and counts an update that compacts swaps in: the kept tools' entries in arrays of their own with each
 * slot its position in `tools` (and room for the added tools' entries), the counts without the removed tools.
 */
interface Compaction {
  tight: TightPostings;
  fieldCounts: Int32Array;
  documentCounts: Int32Array;
  /** per position, the kept tool's record under its new slot; undefined for a tool to add */
  renumbered: Array<ToolRecord | undefined>;
}

function* compactionSteps(previous: SearchIndex, tools: ToolSequence, found: ReadonlyArray<ToolRecord | undefined>, removed: readonly ToolRecord[], room: Int32Array | undefined): Generator<void, Compaction, void> {
  const { postings, documentFrequency } = previous.engine;
  const renumber = new Int32Array(postings.slotCount).fill(-1);
  const renumbered = new Array<ToolRecord | undefined>(tools.length);
  for (let position = 0; position < tools.length; position++) {
    const record = found[position];
    if (record === undefined) continue;
    if (position % STEP === STEP - 1) yield;
    renumber[record.id] = position;
    renumbered[position] = new ToolRecord(position, record.data, record.dictionary);
  }
  const fieldCounts = postings.fieldCounts.slice();
  const documentCounts = documentFrequency.counts.slice();
  for (let at = 0; at < removed.length; at++) {
    if (at % REMOVED_STEP === REMOVED_STEP - 1) yield;
    const termIds = removed[at]!.termIds();
    const masks = removed[at]!.termFieldMasks();
    for (let index = 0; index < termIds.length; index++) {
      documentCounts[termIds[index]!]! -= 1;
      for (let field = 0; field < FIELD_COUNT; field++) if ((masks[index]! & (1 << field)) !== 0) fieldCounts[termIds[index]! * FIELD_COUNT + field]! -= 1;
    }
  }
  const tight = yield* compactedPostingsSteps(postings, renumber, tools.length, room);
  return { tight, fieldCounts, documentCounts, renumbered };
}

// removed tools counted out between two stops of a compaction
const REMOVED_STEP = 256;

function bitCount(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

// tools handled between two stops of an update
const STEP = 4000;

/** A search index as kept on disk: everything but the tools, which it is restored over (by position and name). */
export interface StoredSearchIndex {
  names: string[];
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
  const names: string[] = [];
  for (let position = 0; position < index.tools.length; position++) {
    names.push(toolNameAt(index.tools, position)!);
    if (position % TOOLS_PER_STEP === 0) yield;
  }
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

// records made (or names compared) between two stops of a restore
const RESTORE_STEP = 8192;

// kept for these tools, and of this layout (a file of another layout is a miss, never misread)
function* keptForSteps(stored: StoredSearchIndex, tools: ToolSequence): Generator<void, boolean, void> {
  const { names, offsets, postings, terms, counts, data } = stored;
  if (!Array.isArray(names) || !Array.isArray(terms) || !(offsets instanceof Int32Array) || !(recordNumbers(data) || data instanceof RecordFile) || !(counts instanceof Int32Array)) return false;
  if (names.length !== tools.length || offsets.length !== tools.length + 1 || !postingsFit(postings, tools.length, terms.length)) return false;
  for (let position = 0; position < tools.length; position++) {
    if (position % RESTORE_STEP === RESTORE_STEP - 1) yield;
    if (names[position] !== toolNameAt(tools, position)) return false;
  }
  return true;
}

function postingsFit(postings: StoredPostings | undefined, tools: number, terms: number): boolean {
  if (typeof postings !== 'object' || postings === null) return false;
  const { starts, lengths, fieldCounts, slots, codes, fieldLengths } = postings;
  if (![starts, lengths, fieldCounts, slots].every((array) => array instanceof Int32Array) || !narrowArray(codes) || !narrowArray(fieldLengths)) return false;
  return starts.length === lengths.length && lengths.length >= terms && fieldCounts.length === lengths.length * FIELD_COUNT && slots.length === codes.length && fieldLengths.length === tools * FIELD_COUNT;
}

const recordNumbers = (array: unknown): array is RecordNumbers => array instanceof Uint16Array || array instanceof Int32Array;
const narrowArray = (array: unknown): array is NarrowArray => array instanceof Uint8Array || recordNumbers(array);

/** Whether the shared search structures still hold this version's tools. */
export function isCurrent(index: SearchIndex): boolean {
  return index.version === index.engine.version;
}

/** Inverse document frequency of a term in this index (BM25's form); a term no tool uses counts as the rarest. */
export function inverseDocumentFrequency(index: SearchIndex, term: string): number {
  const known = index.rarity.get(term);
  if (known !== undefined) return known;
  const frequency = index.documentFrequency.get(term);
  const rarity = Math.log(1 + (index.tools.length - (frequency ?? 1) + 0.5) / ((frequency ?? 1) + 0.5));
  // only the index's own terms are kept: requests would grow the map without bound
  if (frequency !== undefined) index.rarity.set(term, rarity);
  return rarity;
}

function snapshot(engine: SearchEngine, tools: ToolSequence, records: ToolRecords): SearchIndex {
  const { postings, documentFrequency, version } = engine;
  const slotPositions = new Int32Array(postings.slotCount).fill(-1);
  // minisearch's running average, the tools added in this order: (average × count + length) / (count + 1)
  const averageFieldLengths = new Float64Array(FIELD_COUNT);
  const { fieldLengths } = postings;
  for (let position = 0; position < records.length; position++) {
    const slot = records.slotAt(position);
    slotPositions[slot] = position;
    for (let field = 0; field < FIELD_COUNT; field++) {
      averageFieldLengths[field] = (averageFieldLengths[field]! * position + fieldLengths[slot * FIELD_COUNT + field]!) / (position + 1);
    }
  }
  const intentRarity = new Array<Float64Array[] | undefined>(records.length);
  return { tools, records, slotPositions, averageFieldLengths, documentFrequency, rarity: new Map(), intentRarity, engine, version };
}

// analyses a tool and indexes it in the slot of the tool it replaces
function reindex(engine: SearchEngine, tool: ToolDefinition, before: ToolRecord): ToolRecord {
  const { record, document } = describeTool(tool, engine.dictionary, before.id);
  engine.postings.replace(before.id, before.termIds(), before.termFieldMasks(), document, engine.dictionary);
  count(engine, before, -1);
  count(engine, record, 1);
  return record;
}

// analyses a tool and indexes it under a new slot (or the empty one given)
function index(engine: SearchEngine, tool: ToolDefinition, emptySlot?: number): ToolRecord {
  const slot = emptySlot ?? engine.postings.nextSlot();
  const { record, document } = describeTool(tool, engine.dictionary, slot);
  engine.postings.add(slot, document, engine.dictionary);
  count(engine, record, 1);
  return record;
}

const slotsOf = (records: readonly ToolRecord[] | ToolRecords): Int32Array => Int32Array.from({ length: records.length }, (_, position) => (records instanceof ToolRecords ? records.slotAt(position) : records[position]!.id));

function count(engine: SearchEngine, record: ToolRecord, change: 1 | -1): void {
  engine.documentFrequency.add(record.termIds(), change);
}
