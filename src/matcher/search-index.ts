import { runToEnd } from '../core/index.js';
import type { ToolDefinition, ToolSequence } from '../core/index.js';
import { PostingsBuild } from './built-postings.js';
import { FIELD_COUNT, Postings } from './postings.js';
import { describeTool, TermDictionary, ToolRecord } from './tool-record.js';
import { ToolRecords } from './tool-records.js';


/** In how many tools each term occurs (terms no tool has now: none). */
export interface TermCounts {
  has(term: string): boolean;
  get(term: string): number | undefined;
}

/** Term counts kept per term id of the engine's dictionary. */
export class DocumentFrequency implements TermCounts {
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
export interface SearchEngine {
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
  const { postings } = engine;
  // each tool's entries staged, and placed in tight lists once every tool is analysed: slots are positions
  const build = new PostingsBuild(postings);
  for (let position = 0; position < tools.length; position++) {
    if (position % BUILD_STEP === BUILD_STEP - 1) yield;
    const slot = postings.nextSlot();
    const { record, document } = describeTool(tools.at(position)!, dictionary, slot);
    build.add(slot, record, document, dictionary);
    count(engine, record, 1);
    records.push(record);
  }
  const tight = yield* build.tightSteps(records);
  postings.adopt({ ...tight, fieldCounts: postings.fieldCounts });
  return snapshot(engine, tools, ToolRecords.of(records));
}

// tools analysed and indexed between two stops of a build (each a fraction of a millisecond)
const BUILD_STEP = 16;

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

/** The search index of the engine's version: `tools` over `records`, with what each request reads worked out once. */
export function snapshot(engine: SearchEngine, tools: ToolSequence, records: ToolRecords): SearchIndex {
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

/** Analyses a tool and indexes it in the slot of the tool it replaces. */
export function reindex(engine: SearchEngine, tool: ToolDefinition, before: ToolRecord): ToolRecord {
  const { record, document } = describeTool(tool, engine.dictionary, before.id);
  engine.postings.replace(before.id, before.termIds(), before.termFieldMasks(), document, engine.dictionary);
  count(engine, before, -1);
  count(engine, record, 1);
  return record;
}

/** Analyses a tool and indexes it under a new slot (or the empty one given). */
export function index(engine: SearchEngine, tool: ToolDefinition, emptySlot?: number): ToolRecord {
  const slot = emptySlot ?? engine.postings.nextSlot();
  const { record, document } = describeTool(tool, engine.dictionary, slot);
  engine.postings.add(slot, document, engine.dictionary);
  count(engine, record, 1);
  return record;
}

/** Per position, the record's slot in the postings. */
export const slotsOf = (records: readonly ToolRecord[] | ToolRecords): Int32Array => Int32Array.from({ length: records.length }, (_, position) => (records instanceof ToolRecords ? records.slotAt(position) : records[position]!.id));

/** Counts a record's terms in (1) or out (-1) of the engine's document frequencies. */
export function count(engine: SearchEngine, record: ToolRecord, change: 1 | -1): void {
  engine.documentFrequency.add(record.termIds(), change);
}
