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
  codes: Int32Array;
  fieldLengths: Int32Array;
}

/**
 * The first stage's inverted index over typed arrays: per term id, the entries of the tools that have it (each
 * tool's entries side by side, in field order, as minisearch adds a tool's fields to its score); per term and
 * field, in how many live tools it occurs; per tool slot, its fields' lengths (distinct terms, minisearch's measure).
 * A removed tool's slot is only marked dead (its entries are skipped) until a compaction drops them.
 */
export class Postings {
  starts!: Int32Array;
  lengths!: Int32Array;
  capacities!: Int32Array;
  fieldCounts!: Int32Array;
  slots!: Int32Array;
  codes!: Int32Array;
  /** entries in use at the start of `slots`/`codes`, live or not */
  used = 0;
  fieldLengths!: Int32Array;
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

  /** drops dead entries and slots and the room moved lists left: the live slots are renumbered in `order` */
  compact(order: Int32Array): void {
    this.adopt(this.compacted(order));
  }

  // tight arrays (their slots numbered from 0) become this index's, with room to grow
  private adopt(tight: StoredPostings): void {
    this.starts = tight.starts;
    this.lengths = tight.lengths;
    this.capacities = tight.lengths.slice();
    this.fieldCounts = tight.fieldCounts;
    this.slots = tight.slots;
    this.codes = tight.codes;
    this.used = tight.slots.length;
    this.slotCount = tight.fieldLengths.length / FIELD_COUNT;
    this.garbage = 0;
    this.deadSlots = 0;
    const room = Math.max(64, this.slotCount);
    this.fieldLengths = room * FIELD_COUNT === tight.fieldLengths.length ? tight.fieldLengths : copied(tight.fieldLengths, new Int32Array(room * FIELD_COUNT));
    this.alive = new Uint8Array(room).fill(1, 0, this.slotCount);
    this.scores = new Float64Array(room);
    this.matched = new Int32Array(room);
    this.touched = new Int32Array(room);
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
    // per term id, its entry codes in field order
    const entries = new Map<number, number[]>();
    for (let field = 0; field < FIELD_COUNT; field++) {
      const text = document[SEARCH_FIELDS[field]!];
      // split as minisearch was given it; its length counts distinct tokens, an empty one too
      const tokens = text.length === 0 ? [] : text.split(' ');
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
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
    for (const [term, codes] of entries) {
      const at = this.reserve(term, codes.length);
      for (let index = 0; index < codes.length; index++) {
        this.slots[at + index] = slot;
        this.codes[at + index] = codes[index]!;
        this.fieldCounts[term * FIELD_COUNT + (codes[index]! & FIELD_MASK)]! += 1;
      }
    }
    this.alive[slot] = 1;
  }

  /** takes a tool out: `fields` gives each of its term ids with the mask of the fields it has the term in */
  remove(slot: number, termIds: Int32Array, masks: Int32Array): void {
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

  /** whether dropping dead entries and slots is worth a pass over all entries */
  wasteful(): boolean {
    return this.deadSlots > Math.max(256, this.slotCount / 2) || this.garbage > Math.max(65_536, this.used / 2);
  }

  /**
   * The live entries in tight arrays, slots renumbered by `order` (live slots in the order they get their new
   * numbers): what a compaction keeps and what is written to disk.
   */
  compacted(order: Int32Array): StoredPostings {
    const renumber = new Int32Array(this.slotCount).fill(-1);
    order.forEach((slot, next) => (renumber[slot] = next));
    const terms = this.lengths.length;
    const starts = new Int32Array(terms);
    const lengths = new Int32Array(terms);
    let total = 0;
    for (let term = 0; term < terms; term++) {
      const start = this.starts[term]!;
      const end = start + this.lengths[term]!;
      for (let at = start; at < end; at++) if (renumber[this.slots[at]!] !== -1) lengths[term]! += 1;
      starts[term] = total;
      total += lengths[term]!;
    }
    const slots = new Int32Array(total);
    const codes = new Int32Array(total);
    let next = 0;
    for (let term = 0; term < terms; term++) {
      const start = this.starts[term]!;
      const end = start + this.lengths[term]!;
      for (let at = start; at < end; at++) {
        const slot = renumber[this.slots[at]!]!;
        if (slot === -1) continue;
        slots[next] = slot;
        codes[next] = this.codes[at]!;
        next += 1;
      }
    }
    const fieldLengths = new Int32Array(order.length * FIELD_COUNT);
    order.forEach((slot, renumbered) => fieldLengths.set(this.fieldLengths.subarray(slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT), renumbered * FIELD_COUNT));
    return { starts, lengths, fieldCounts: this.fieldCounts.slice(0, terms * FIELD_COUNT), slots, codes, fieldLengths };
  }

  // room for `count` more entries of `term`, moving its list to the end when it is full; where they start
  private reserve(term: number, count: number): number {
    const start = this.starts[term]!;
    const length = this.lengths[term]!;
    const capacity = this.capacities[term]!;
    if (length + count <= capacity) {
      this.lengths[term] = length + count;
      return start + length;
    }
    // the last list grows where it is
    if (start + capacity === this.used && capacity > 0) {
      const grown = Math.max(length + count, capacity * 2);
      this.growEntries(start + grown);
      this.used = start + grown;
      this.capacities[term] = grown;
      this.lengths[term] = length + count;
      return start + length;
    }
    const grown = Math.max(4, (length + count) * 2);
    const moved = this.used;
    this.growEntries(moved + grown);
    this.slots.copyWithin(moved, start, start + length);
    this.codes.copyWithin(moved, start, start + length);
    this.used = moved + grown;
    this.garbage += capacity;
    this.starts[term] = moved;
    this.capacities[term] = grown;
    this.lengths[term] = length + count;
    return moved + length;
  }

  private growEntries(needed: number): void {
    if (needed <= this.slots.length) return;
    const size = Math.max(needed, this.slots.length * 2);
    this.slots = copied(this.slots, new Int32Array(size));
    this.codes = copied(this.codes, new Int32Array(size));
  }

  private growTerms(terms: number): void {
    if (terms <= this.lengths.length) return;
    const size = Math.max(terms, this.lengths.length * 2);
    this.starts = copied(this.starts, new Int32Array(size));
    this.lengths = copied(this.lengths, new Int32Array(size));
    this.capacities = copied(this.capacities, new Int32Array(size));
    this.fieldCounts = copied(this.fieldCounts, new Int32Array(size * FIELD_COUNT));
  }

  private growSlots(size: number): void {
    this.alive = copied(this.alive, new Uint8Array(size));
    this.fieldLengths = copied(this.fieldLengths, new Int32Array(size * FIELD_COUNT));
    this.scores = new Float64Array(size);
    this.matched = new Int32Array(size);
    this.touched = new Int32Array(size);
  }
}

function copied<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from.subarray(0, Math.min(from.length, to.length)));
  return to;
}

/** The entry code's field and term frequency. */
export const fieldOf = (code: number): number => code & FIELD_MASK;
export const frequencyOf = (code: number): number => code >>> FIELD_SHIFT;
