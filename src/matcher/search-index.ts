import { runToEnd } from '../core/index.js';
import MiniSearch from 'minisearch';
import type { ToolDefinition } from '../core/index.js';
import { SEARCH_FIELDS } from './search-document.js';
import { describeTool, indexedDocument, reserveRecordIds, TermDictionary, ToolRecord, type IndexedDocument } from './tool-record.js';

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

  add(ids: Int32Array, change: 1 | -1): void {
    if (this.dictionary.terms.length > this.counts.length) {
      const grown = new Int32Array(Math.max(64, this.dictionary.terms.length, this.counts.length * 2));
      grown.set(this.counts);
      this.counts = grown;
    }
    for (const id of ids) this.counts[id]! += change;
  }
}

/**
 * The minisearch index and term statistics that a line of index versions shares: an update changes
 * them in place, so only the version it made may read them afterwards.
 */
interface SearchEngine {
  minisearch: MiniSearch<IndexedDocument>;
  /** the ids of the terms the engine's records hold */
  dictionary: TermDictionary;
  /** in how many tools each term occurs */
  documentFrequency: DocumentFrequency;
  /** the version whose tools the engine holds now */
  version: number;
}

/** The search structures of one index version: minisearch over the tools' fields, and each tool's record. */
export interface SearchIndex {
  tools: readonly ToolDefinition[];
  /** per position in `tools`, what the re-rank knows of the tool */
  records: readonly ToolRecord[];
  /** minisearch id → position in `tools` */
  positions: Map<number, number>;
  minisearch: MiniSearch<IndexedDocument>;
  documentFrequency: TermCounts;
  /** inverse document frequencies read so far (of terms the index has), kept for this version only */
  rarity: Map<string, number>;
  /** per position, the rarity of each word of each of the tool's intents, worked out on first use */
  intentRarity: Array<Float64Array[] | undefined>;
  engine: SearchEngine;
  version: number;
}

// analysed fields travel through minisearch as space-joined terms: it only has to split them again
const splitTerms = (text: string): string[] => (text.length === 0 ? [] : text.split(' '));
const sameTerm = (term: string): string => term;

// how minisearch is made, and loaded again from its JSON
const MINISEARCH_OPTIONS = {
  fields: [...SEARCH_FIELDS],
  tokenize: splitTerms,
  processTerm: sameTerm,
  searchOptions: { tokenize: splitTerms, processTerm: sameTerm, combineWith: 'OR' as const },
};

/** Analyses every tool and indexes it with minisearch. */
export function buildSearchIndex(tools: readonly ToolDefinition[]): SearchIndex {
  return runToEnd(buildSearchIndexSteps(tools));
}

/**
 * `buildSearchIndex`, stopping every few tools (a server builds its first index a slice at a time while it already
 * answers calls by name). The structures are new and private until the end, so stopping anywhere is safe.
 */
export function* buildSearchIndexSteps(tools: readonly ToolDefinition[]): Generator<void, SearchIndex, void> {
  const dictionary = new TermDictionary();
  const engine: SearchEngine = {
    minisearch: new MiniSearch<IndexedDocument>(MINISEARCH_OPTIONS),
    dictionary,
    documentFrequency: new DocumentFrequency(dictionary),
    version: 0,
  };
  const records: ToolRecord[] = [];
  for (let position = 0; position < tools.length; position++) {
    if (position % BUILD_STEP === BUILD_STEP - 1) yield;
    const { record, document } = describeTool(tools[position]!, dictionary);
    engine.minisearch.add(document);
    count(engine, record, 1);
    records.push(record);
  }
  return snapshot(engine, tools, records);
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
export function updateSearchIndex(previous: SearchIndex, tools: readonly ToolDefinition[]): SearchIndex {
  return runToEnd(updateSearchIndexSteps(previous, tools));
}

/**
 * `updateSearchIndex`, stopping every few thousand tools while it only reads (a server's rescan runs it a slice
 * at a time). The shared structures change in one go at the end, with only the changed tools to index: a
 * request served meanwhile by the previous version never sees them half-updated.
 */
export function* updateSearchIndexSteps(previous: SearchIndex, tools: readonly ToolDefinition[]): Generator<void, SearchIndex, void> {
  const known = new Map<ToolDefinition, ToolRecord>();
  for (let position = 0; position < previous.records.length; position++) {
    if (position % STEP === STEP - 1) yield;
    known.set(previous.records[position]!.tool, previous.records[position]!);
  }
  const kept = new Set<ToolRecord>();
  for (let position = 0; position < tools.length; position++) {
    if (position % STEP === STEP - 1) yield;
    const record = known.get(tools[position]!);
    if (record !== undefined) kept.add(record);
  }
  // from here on nothing lets go
  if (!isCurrent(previous)) return buildSearchIndex(tools);
  const { engine } = previous;
  for (const record of previous.records) {
    if (kept.has(record)) continue;
    // removed term by term, unlike `discard`: minisearch's scores then match a fresh index's at once
    engine.minisearch.remove(indexedDocument(record));
    count(engine, record, -1);
  }
  const records = tools.map((tool) => {
    const record = known.get(tool);
    if (record !== undefined) return record;
    const described = describeTool(tool, engine.dictionary);
    engine.minisearch.add(described.document);
    count(engine, described.record, 1);
    return described.record;
  });
  engine.version += 1;
  return snapshot(engine, tools, records);
}

// tools handled between two stops of an update
const STEP = 4000;

/** A search index as kept on disk: everything but the tools, which it is restored over (by position and name). */
export interface StoredSearchIndex {
  names: string[];
  /** minisearch's own JSON */
  minisearch: string;
  /** the engine's dictionary: each term at its id */
  terms: string[];
  /** per term id, in how many tools it occurs */
  counts: Int32Array;
  /** per position, the record's minisearch id */
  ids: Int32Array;
  /** the records' numbers one after another: the record at position p is `data[offsets[p]..offsets[p + 1]]` */
  offsets: Int32Array;
  data: Int32Array;
}

/** What of a search index is kept on disk. */
export function storeSearchIndex(index: SearchIndex): StoredSearchIndex {
  const { records } = index;
  const { dictionary, documentFrequency } = index.engine;
  const offsets = new Int32Array(records.length + 1);
  records.forEach((record, position) => (offsets[position + 1] = offsets[position]! + record.data.length));
  const data = new Int32Array(offsets[records.length]!);
  records.forEach((record, position) => data.set(record.data, offsets[position]));
  return {
    names: index.tools.map((tool) => tool.name),
    minisearch: JSON.stringify(index.minisearch),
    terms: dictionary.terms.slice(),
    counts: documentFrequency.counts.slice(0, dictionary.terms.length),
    ids: Int32Array.from(records, (record) => record.id),
    offsets,
    data,
  };
}

/** The search index kept for exactly these tools, over them; undefined when it was kept for other tools. */
export function restoreSearchIndex(stored: StoredSearchIndex, tools: readonly ToolDefinition[]): SearchIndex | undefined {
  return keptFor(stored, tools) ? restoreOver(stored, tools, MiniSearch.loadJSON<IndexedDocument>(stored.minisearch, MINISEARCH_OPTIONS)) : undefined;
}

/**
 * `restoreSearchIndex` for a server that already answers: minisearch turns its postings back into maps a thousand
 * terms at a time (its `loadJSONAsync`), letting the event loop go between; only the JSON.parse of them is one piece.
 */
export async function restoreSearchIndexLettingGo(stored: StoredSearchIndex, tools: readonly ToolDefinition[]): Promise<SearchIndex | undefined> {
  if (!keptFor(stored, tools)) return undefined;
  return restoreOver(stored, tools, await MiniSearch.loadJSONAsync<IndexedDocument>(stored.minisearch, MINISEARCH_OPTIONS));
}

function keptFor(stored: StoredSearchIndex, tools: readonly ToolDefinition[]): boolean {
  const { names, ids, offsets } = stored;
  if (names.length !== tools.length || ids.length !== tools.length || offsets.length !== tools.length + 1) return false;
  for (let position = 0; position < tools.length; position++) if (names[position] !== tools[position]!.name) return false;
  return true;
}

function restoreOver(stored: StoredSearchIndex, tools: readonly ToolDefinition[], minisearch: MiniSearch<IndexedDocument>): SearchIndex {
  const { ids, offsets, data } = stored;
  const dictionary = new TermDictionary(stored.terms);
  // a record is a view of the one array read from the file: no copy
  const records = tools.map((tool, position) => new ToolRecord(tool, ids[position]!, data.subarray(offsets[position], offsets[position + 1]), dictionary));
  // later tools are given ids no restored record holds
  let next = 0;
  for (const id of ids) next = Math.max(next, id + 1);
  reserveRecordIds(next);
  const engine: SearchEngine = {
    minisearch,
    dictionary,
    documentFrequency: new DocumentFrequency(dictionary, stored.counts),
    version: 0,
  };
  return snapshot(engine, tools, records);
}

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

function snapshot(engine: SearchEngine, tools: readonly ToolDefinition[], records: ToolRecord[]): SearchIndex {
  const positions = new Map<number, number>();
  records.forEach((record, position) => positions.set(record.id, position));
  const { minisearch, documentFrequency, version } = engine;
  const intentRarity = new Array<Float64Array[] | undefined>(records.length);
  return { tools, records, positions, minisearch, documentFrequency, rarity: new Map(), intentRarity, engine, version };
}

function count(engine: SearchEngine, record: ToolRecord, change: 1 | -1): void {
  engine.documentFrequency.add(record.termIds(), change);
}
