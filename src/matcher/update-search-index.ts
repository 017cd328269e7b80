import { runToEnd, sameToolsAt, toolNameAt } from '../core/index.js';
import type { ToolDefinition, ToolSequence } from '../core/index.js';
import { compactedPostingsSteps, type TightPostings } from './compacted-postings.js';
import { FIELD_COUNT } from './postings.js';
import { buildSearchIndex, buildSearchIndexSteps, count, index, isCurrent, reindex, snapshot, type SearchIndex } from './search-index.js';
import { UnreadableList } from './kept-lists.js';
import { describeTool, ToolRecord } from './tool-record.js';
import { ToolRecords } from './tool-records.js';

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
  // what follows may read, move or compact any list: those still in the kept index file are read first (one whose slots
  // name no tool refuses the file, and the index is built afresh, as a start without the file builds it)
  if (added > 0 || removed.length > 0) {
    try {
      yield* previous.engine.postings.readAllSteps();
    } catch (error) {
      if (error instanceof UnreadableList) return yield* buildSearchIndexSteps(tools);
      throw error;
    }
  }
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
