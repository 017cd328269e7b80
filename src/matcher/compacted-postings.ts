import { runToEnd } from '../core/index.js';
import { arrayOf, narrowed, widthFor, type NarrowArray, type StreamedArray } from './narrow-array.js';
import { FIELD_COUNT, type Postings, type StoredPostings } from './postings.js';

/** The postings as the file writer takes them: tight, as a compaction leaves them, their entries handed over a piece at a time. */
export type WritablePostings = Omit<StoredPostings, 'slots' | 'codes'> & { slots: StreamedArray; codes: StreamedArray };

/**
 * The live entries of `postings` as tight arrays, slots renumbered by `order` (live slots in the order they get their
 * new numbers), for the file: the slots and codes of the entries read a piece at a time from where they lie as the
 * file is written (each write of a 100,000-tool index made them whole beside the index, 28 MB of slots and 28 of codes
 * narrowed into 7 more, issue #18), so the postings must not change until it is written; the rest made whole (a few
 * numbers per term and per tool).
 */
export function streamedPostings(postings: Postings, order: Int32Array): WritablePostings {
  return runToEnd(streamedPostingsSteps(postings, order));
}

/** `streamedPostings` a step per term, for a server that writes its file while it answers (a pass over every entry). */
export function* streamedPostingsSteps(postings: Postings, order: Int32Array): Generator<void, WritablePostings, void> {
  yield* postings.readAllSteps();
  const renumber = renumbering(order, postings.slotCount);
  const terms = postings.lengths.length;
  const starts = new Int32Array(terms);
  const lengths = new Int32Array(terms);
  let total = 0;
  let largestCode = 0;
  for (let term = 0; term < terms; term++) {
    const { slots, codes, start, end } = listOf(postings, term);
    let kept = 0;
    for (let at = start; at < end; at++) {
      if (renumber[slots[at]!] === -1) continue;
      kept += 1;
      if (codes[at]! > largestCode) largestCode = codes[at]!;
    }
    starts[term] = total;
    lengths[term] = kept;
    total += kept;
    yield;
  }
  // each live entry's new slot, or its code, in order
  function* pieces(piece: NarrowArray, take: 'slot' | 'code'): Generator<NarrowArray, void, void> {
    let filled = 0;
    for (let term = 0; term < terms; term++) {
      const list = listOf(postings, term);
      for (let at = list.start; at < list.end; at++) {
        const slot = renumber[list.slots[at]!]!;
        if (slot === -1) continue;
        piece[filled++] = take === 'slot' ? slot : list.codes[at]!;
        if (filled < piece.length) continue;
        yield piece;
        filled = 0;
      }
    }
    if (filled > 0) yield piece.subarray(0, filled);
  }
  const fieldLengths = new Int32Array(order.length * FIELD_COUNT);
  for (let slot = 0; slot < renumber.length; slot++) {
    const renumbered = renumber[slot]!;
    if (renumbered === -1) continue;
    for (let field = 0; field < FIELD_COUNT; field++) fieldLengths[renumbered * FIELD_COUNT + field] = postings.fieldLengths[slot * FIELD_COUNT + field]!;
  }
  const codeWidth = widthFor(largestCode);
  return {
    starts,
    lengths,
    fieldCounts: postings.fieldCounts.slice(0, terms * FIELD_COUNT),
    slots: { length: total, width: 4, pieces: () => pieces(new Int32Array(Math.min(PIECE, total)), 'slot') },
    codes: { length: total, width: codeWidth, pieces: () => pieces(arrayOf(codeWidth, Math.min(PIECE, total)), 'code') },
    fieldLengths: narrowed(fieldLengths),
  };
}

// numbers handed over in one piece (256 KB of slots)
const PIECE = 1 << 16;

// where `term`'s list lies: in the tight pool, or in the pool of moved lists
function listOf(postings: Postings, term: number): { slots: Int32Array; codes: NarrowArray; start: number; end: number } {
  const moved = postings.moved[term] === 1;
  const start = postings.starts[term]!;
  return { slots: moved ? postings.movedSlots : postings.slots, codes: moved ? postings.movedCodes : postings.codes, start, end: start + postings.lengths[term]! };
}

/** Per slot of `slotCount`, its new number in `order` (-1: dropped). */
export function renumbering(order: Int32Array, slotCount: number): Int32Array {
  const renumber = new Int32Array(slotCount).fill(-1);
  for (let next = 0; next < order.length; next++) renumber[order[next]!] = next;
  return renumber;
}

/**
 * `compactedPostings` for `slotCount` new slots (`renumber`: per old slot its new number, -1 dropped; a new slot no
 * old one maps to is left empty, for a tool added after; `room`: per term id, room left after its entries for tools to
 * add), stopping every few thousand entries; without the counts per term and field, which the caller gives. It only
 * reads the postings, so the index they belong to stays searchable meanwhile (and must not change: an update that
 * changed them throws the result away).
 */
export function* compactedPostingsSteps(postings: Postings, renumber: Int32Array, slotCount: number, room?: Int32Array): Generator<void, TightPostings, void> {
  yield* postings.readAllSteps();
  const terms = postings.lengths.length;
  const starts = new Int32Array(terms);
  const lengths = new Int32Array(terms);
  let total = 0;
  let read = 0;
  for (let term = 0; term < terms; term++) {
    const start = postings.starts[term]!;
    const end = start + postings.lengths[term]!;
    const from = postings.moved[term] === 1 ? postings.movedSlots : postings.slots;
    let kept = 0;
    for (let at = start; at < end; at++) if (renumber[from[at]!] !== -1) kept += 1;
    starts[term] = total;
    lengths[term] = kept;
    total += kept + (room !== undefined && term < room.length ? room[term]! : 0);
    read += end - start + 1;
    if (read >= ENTRY_STEP) {
      read = 0;
      yield;
    }
  }
  const slots = new Int32Array(total);
  const codes = new Int32Array(total);
  for (let term = 0; term < terms; term++) {
    let next = starts[term]!;
    const start = postings.starts[term]!;
    const end = start + postings.lengths[term]!;
    const moved = postings.moved[term] === 1;
    const fromSlots = moved ? postings.movedSlots : postings.slots;
    const fromCodes = moved ? postings.movedCodes : postings.codes;
    for (let at = start; at < end; at++) {
      const slot = renumber[fromSlots[at]!]!;
      if (slot === -1) continue;
      slots[next] = slot;
      codes[next] = fromCodes[at]!;
      next += 1;
    }
    read += end - start + 1;
    if (read >= ENTRY_STEP) {
      read = 0;
      yield;
    }
  }
  const fieldLengths = new Int32Array(slotCount * FIELD_COUNT);
  for (let slot = 0; slot < renumber.length; slot++) {
    const renumbered = renumber[slot]!;
    if (renumbered === -1) continue;
    for (let field = 0; field < FIELD_COUNT; field++) fieldLengths[renumbered * FIELD_COUNT + field] = postings.fieldLengths[slot * FIELD_COUNT + field]!;
    read += FIELD_COUNT;
    if (read >= ENTRY_STEP) {
      read = 0;
      yield;
    }
  }
  const capacities = room === undefined ? lengths.slice() : lengths.map((length, term) => length + (term < room.length ? room[term]! : 0));
  // most codes fit in a byte and most field lengths too: a fourth of the memory (a tool added later widens them if need be)
  return { starts, lengths, capacities, slots, codes: narrowed(codes), fieldLengths: narrowed(fieldLengths) };
}

/** Postings in arrays of their own, each term's list with its room to grow; the counts per term and field apart. */
export type TightPostings = Omit<StoredPostings, 'fieldCounts'> & { capacities: Int32Array };

// entries read between two stops (a fraction of a millisecond)
const ENTRY_STEP = 16_384;
