import type { KeptLists } from './kept-lists.js';
import { holding, resized, type NarrowArray } from './narrow-array.js';
import { SEARCH_FIELDS } from './search-document.js';
import type { IndexedDocument, TermDictionary } from './tool-record.js';

/** How many fields a tool is indexed by. */
export const FIELD_COUNT = SEARCH_FIELDS.length;

// An entry is one (term, tool, field): the tool's slot, and `frequency * 16 + field`.
const FIELD_MASK = 15;
const FIELD_SHIFT = 4;

/** The postings of a search index as kept on disk: tight, each tool's slot its position. */
export interface StoredPostings {
  starts: Int32Array;
  lengths: Int32Array;
  fieldCounts: Int32Array;
  slots: Int32Array;
  /** entry codes, as narrow as they fit (most fit in a byte: a frequency under 16) */
  codes: NarrowArray;
  /** per slot and field, its length, as narrow as they fit */
  fieldLengths: NarrowArray;
  /** where the lists are still in the index file they were kept in: `slots` and `codes` are filled as each is first read */
  kept?: KeptLists;
}

// entries read from the index file between two steps of `readAllSteps` (a few MB)
const READ_STEP = 1 << 18;

/**
 * The first stage's inverted index over typed arrays: per term id, the entries of the tools that have it (each
 * tool's entries side by side, in field order, as minisearch adds a tool's fields to its score); per term and
 * field, in how many live tools it occurs; per tool slot, its fields' lengths (distinct terms, minisearch's measure).
 * A removed tool's slot is only marked dead (its entries are skipped) until a compaction drops them.
 * The entries sit in two pools: the tight arrays a build, a compaction or the index file gave, which never grow,
 * and the lists that outgrew their room, moved with room to spare: a rescan after a start copies only the lists of
 * the words it adds, not every entry (at 100,000 tools, 28 MB, and the garbage collection that set off).
 */
export class Postings {
  starts!: Int32Array;
  lengths!: Int32Array;
  capacities!: Int32Array;
  fieldCounts!: Int32Array;
  /** the tight pool (its codes as narrow as they fit, widened when a tool added into its room brings a larger one) */
  slots!: Int32Array;
  codes!: NarrowArray;
  /** the tight pool's lists still in the index file, each read at its first use (`readList`); undefined once all are read */
  kept: KeptLists | undefined;
  /** per term id, 1 where its list is in the pool of moved lists */
  moved!: Uint8Array;
  movedSlots!: Int32Array;
  movedCodes!: Int32Array;
  /** entries in use at the start of the moved lists' pool, live or not */
  movedUsed = 0;
  /** as narrow as they fit, widened when a tool added brings a longer field */
  fieldLengths!: NarrowArray;
  alive!: Uint8Array;
  /** slots given so far */
  slotCount = 0;
  /** entries no search reads any more: dead tools' and those left behind when a term's list moved */
  garbage = 0;
  deadSlots = 0;
  /** scratch of a search: per slot its score so far and how many request terms it matched; the slots touched */
  scores!: Float64Array;
  matched!: Int32Array;
  touched!: Int32Array;

  constructor(stored?: StoredPostings) {
    this.adopt(stored ?? { starts: new Int32Array(64), lengths: new Int32Array(64), fieldCounts: new Int32Array(64 * FIELD_COUNT), slots: new Int32Array(0), codes: new Int32Array(0), fieldLengths: new Int32Array(0) });
  }

  /**
   * tight arrays (their slots numbered from 0, as `compactedPostingsSteps` gives them, codes and field lengths as narrow as
   * it made them) become this index's, with room to grow (each list's own, `capacities`, when given: none by default)
   */
  adopt(tight: StoredPostings & { capacities?: Int32Array }): void {
    this.starts = tight.starts;
    this.lengths = tight.lengths;
    this.capacities = tight.capacities ?? tight.lengths.slice();
    this.fieldCounts = tight.fieldCounts;
    this.slots = tight.slots;
    this.codes = tight.codes;
    this.kept = tight.kept?.done === false ? tight.kept : undefined;
    this.moved = new Uint8Array(tight.lengths.length);
    this.movedSlots = new Int32Array(1024);
    this.movedCodes = new Int32Array(1024);
    this.movedUsed = 0;
    this.slotCount = tight.fieldLengths.length / FIELD_COUNT;
    this.garbage = 0;
    this.deadSlots = 0;
    const room = Math.max(64, this.slotCount);
    this.fieldLengths = room * FIELD_COUNT === tight.fieldLengths.length ? tight.fieldLengths : resized(tight.fieldLengths, room * FIELD_COUNT);
    this.alive = new Uint8Array(room).fill(1, 0, this.slotCount);
    this.scores = new Float64Array(room);
    this.matched = new Int32Array(room);
    this.touched = new Int32Array(room);
  }

  /**
   * reads `term`'s list of the tight pool from the index file, where it is still there: before a search reads it (a
   * list whose slots name no tool throws `UnreadableList`)
   */
  readList(term: number): void {
    const kept = this.kept;
    if (kept === undefined || this.moved[term] === 1 || term >= this.lengths.length) return;
    kept.read(term, this.starts[term]!, this.lengths[term]!, this.slots, this.codes);
    if (kept.done) this.kept = undefined;
  }

  /** reads every list still in the index file, a slice at a time: before an update, a compaction or a write, which read any */
  *readAllSteps(): Generator<void, void, void> {
    let read = 0;
    for (let term = 0; this.kept !== undefined && term < this.lengths.length; term++) {
      this.readList(term);
      read += this.lengths[term]!;
      if (read < READ_STEP) continue;
      read = 0;
      yield;
    }
  }

  // `readAllSteps` at once: what adds or replaces a tool's entries moves or cuts lists it does not know are read
  private readAll(): void {
    if (this.kept === undefined) return;
    for (const _ of this.readAllSteps());
  }

  /** a new slot for a tool about to be added */
  nextSlot(): number {
    const slot = this.slotCount;
    this.slotCount += 1;
    if (this.slotCount > this.alive.length) this.growSlots(this.alive.length * 2);
    return slot;
  }

  /** indexes a tool's document under `slot` (from `nextSlot`) */
  add(slot: number, document: IndexedDocument, dictionary: TermDictionary): void {
    this.readAll();
    const entries = this.entriesOf(slot, document, dictionary);
    for (const [term, codes] of entries) this.write(term, this.reserve(term, codes.length), slot, codes);
    this.alive[slot] = 1;
  }

  /**
   * indexes a tool's document under the `slot` of the tool it replaces (`termIds` and `masks` as `remove` takes them):
   * where it has a term in as many fields as the tool before, its entries are rewritten where they are, and only a list
   * it brings more entries than it had room for moves (at 100,000 tools whose words every tool has, a changed tool added
   * under a new slot moved every list). Reads each of the replaced tool's lists to find its entries: `replaceCost`.
   */
  replace(slot: number, termIds: ArrayLike<number>, masks: ArrayLike<number>, document: IndexedDocument, dictionary: TermDictionary): void {
    this.readAll();
    const entries = this.entriesOf(slot, document, dictionary);
    for (let index = 0; index < termIds.length; index++) {
      const term = termIds[index]!;
      const had = bitCount(masks[index]!);
      for (let field = 0; field < FIELD_COUNT; field++) if ((masks[index]! & (1 << field)) !== 0) this.fieldCounts[term * FIELD_COUNT + field]! -= 1;
      const at = this.entriesAt(term, slot);
      const codes = entries.get(term);
      if (codes !== undefined && codes.length === had) {
        this.write(term, at, slot, codes);
        entries.delete(term);
      } else this.cut(term, at, had);
    }
    for (const [term, codes] of entries) this.write(term, this.reserve(term, codes.length), slot, codes);
    this.alive[slot] = 1;
  }

  /** how many entries `replace` of the tool with `termIds` reads at most */
  replaceCost(termIds: ArrayLike<number>): number {
    let cost = 0;
    for (let index = 0; index < termIds.length; index++) cost += this.lengths[termIds[index]!] ?? 0;
    return cost;
  }

  /**
   * per term id of the document's terms, its entry codes in field order; the slot's field lengths set and the term
   * arrays grown to the dictionary (a first build stages the codes itself: `PostingsBuild`)
   */
  entriesOf(slot: number, document: IndexedDocument, dictionary: TermDictionary): Map<number, number[]> {
    const entries = new Map<number, number[]>();
    for (let field = 0; field < FIELD_COUNT; field++) {
      const text = document[SEARCH_FIELDS[field]!];
      // split as minisearch was given it; its length counts distinct tokens, an empty one too
      const tokens = text.length === 0 ? [] : text.split(' ');
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      this.fieldLengths = holding(this.fieldLengths, frequencies.size);
      this.fieldLengths[slot * FIELD_COUNT + field] = frequencies.size;
      for (const [term, frequency] of frequencies) {
        if (term === '') continue;
        const id = dictionary.intern(term);
        let codes = entries.get(id);
        if (codes === undefined) entries.set(id, (codes = []));
        codes.push(frequency * (FIELD_MASK + 1) + field);
      }
    }
    this.growTerms(dictionary.terms.length);
    return entries;
  }

  // writes `slot`'s entries of `term` from `at` in its list, and counts them
  private write(term: number, at: number, slot: number, codes: readonly number[]): void {
    // the tight pool's codes are narrow: widened (all of them, once) only when a code written into its room does not fit
    if (this.moved[term] !== 1) for (const code of codes) this.codes = holding(this.codes, code);
    const [slots, codesTo] = this.moved[term] === 1 ? [this.movedSlots, this.movedCodes] : [this.slots, this.codes];
    for (let index = 0; index < codes.length; index++) {
      slots[at + index] = slot;
      codesTo[at + index] = codes[index]!;
      this.fieldCounts[term * FIELD_COUNT + (codes[index]! & FIELD_MASK)]! += 1;
    }
  }

  // where `slot`'s entries of `term` start (a tool's entries for a term are side by side)
  private entriesAt(term: number, slot: number): number {
    const slots = this.moved[term] === 1 ? this.movedSlots : this.slots;
    const start = this.starts[term]!;
    const end = start + this.lengths[term]!;
    for (let at = start; at < end; at++) if (slots[at] === slot) return at;
    throw new Error(`search index: tool slot ${slot} has no entries for term ${term} that its record names`);
  }

  // takes `count` entries out of `term`'s list from `at`, the rest of the list moved up (its room grows by as many)
  private cut(term: number, at: number, count: number): void {
    const [slots, codes] = this.moved[term] === 1 ? [this.movedSlots, this.movedCodes] : [this.slots, this.codes];
    const end = this.starts[term]! + this.lengths[term]!;
    slots.copyWithin(at, at + count, end);
    codes.copyWithin(at, at + count, end);
    this.lengths[term]! -= count;
  }

  /** takes a tool out: `fields` gives each of its term ids with the mask of the fields it has the term in */
  remove(slot: number, termIds: ArrayLike<number>, masks: ArrayLike<number>): void {
    this.alive[slot] = 0;
    this.deadSlots += 1;
    for (let index = 0; index < termIds.length; index++) {
      const term = termIds[index]!;
      for (let field = 0; field < FIELD_COUNT; field++) {
        if ((masks[index]! & (1 << field)) === 0) continue;
        this.fieldCounts[term * FIELD_COUNT + field]! -= 1;
        this.garbage += 1;
      }
    }
  }

  /**
   * whether dropping dead entries and slots is worth a pass over all entries once `removedSlots` more tools (with
   * `removedEntries` entries) are taken out and `addedSlots` added
   */
  wastefulAfter(removedSlots: number, removedEntries: number, addedSlots: number): boolean {
    const deadSlots = this.deadSlots + removedSlots;
    const garbage = this.garbage + removedEntries;
    return deadSlots > Math.max(256, (this.slotCount + addedSlots) / 2) || garbage > Math.max(65_536, (this.slots.length + this.movedUsed) / 2);
  }

  /** entries a search may read: the tight pool's and the moved lists' pool's in use, less the garbage among them */
  entriesInUse(): number {
    return this.slots.length + this.movedUsed - this.garbage;
  }

  /** how many entries adding `room[term]` more entries to each term's list would move to the pool of moved lists */
  entriesMovedBy(room: Int32Array): number {
    let moved = 0;
    for (let term = 0; term < room.length && term < this.lengths.length; term++) {
      if (room[term]! > 0 && this.lengths[term]! + room[term]! > this.capacities[term]!) moved += this.lengths[term]!;
    }
    return moved;
  }

  // room for `count` more entries of `term`, moving its list to the moved lists' pool when it is full; where they start
  private reserve(term: number, count: number): number {
    const start = this.starts[term]!;
    const length = this.lengths[term]!;
    const capacity = this.capacities[term]!;
    if (length + count <= capacity) {
      this.lengths[term] = length + count;
      return start + length;
    }
    const moved = this.moved[term] === 1;
    // the last moved list grows where it is
    if (moved && start + capacity === this.movedUsed) {
      const grown = Math.max(length + count, capacity * 2);
      this.growMoved(start + grown);
      this.movedUsed = start + grown;
      this.capacities[term] = grown;
      this.lengths[term] = length + count;
      return start + length;
    }
    const grown = Math.max(4, (length + count) * 2);
    const at = this.movedUsed;
    this.growMoved(at + grown);
    // read after the pool grew: a moved list is copied from the new arrays
    this.movedSlots.set((moved ? this.movedSlots : this.slots).subarray(start, start + length), at);
    this.movedCodes.set((moved ? this.movedCodes : this.codes).subarray(start, start + length), at);
    this.movedUsed = at + grown;
    this.garbage += capacity;
    this.moved[term] = 1;
    this.starts[term] = at;
    this.capacities[term] = grown;
    this.lengths[term] = length + count;
    return at + length;
  }

  private growMoved(needed: number): void {
    if (needed <= this.movedSlots.length) return;
    const size = Math.max(needed, this.movedSlots.length * 2);
    this.movedSlots = copied(this.movedSlots, new Int32Array(size));
    this.movedCodes = copied(this.movedCodes, new Int32Array(size));
  }

  private growTerms(terms: number): void {
    if (terms <= this.lengths.length) return;
    const size = Math.max(terms, this.lengths.length * 2);
    this.starts = copied(this.starts, new Int32Array(size));
    this.lengths = copied(this.lengths, new Int32Array(size));
    this.capacities = copied(this.capacities, new Int32Array(size));
    this.moved = copied(this.moved, new Uint8Array(size));
    this.fieldCounts = copied(this.fieldCounts, new Int32Array(size * FIELD_COUNT));
  }

  private growSlots(size: number): void {
    this.alive = copied(this.alive, new Uint8Array(size));
    this.fieldLengths = resized(this.fieldLengths, size * FIELD_COUNT);
    this.scores = new Float64Array(size);
    this.matched = new Int32Array(size);
    this.touched = new Int32Array(size);
  }
}

function bitCount(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

function copied<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from.subarray(0, Math.min(from.length, to.length)));
  return to;
}

/** The entry code's field and term frequency. */
export const fieldOf = (code: number): number => code & FIELD_MASK;
export const frequencyOf = (code: number): number => code >>> FIELD_SHIFT;
