import { FIELD_COUNT, type Postings } from './postings.js';
import { arrayOf, holding, narrowed, resized, widthFor, type NarrowArray } from './narrow-array.js';
import type { IndexedDocument, RecordNumbers, TermDictionary, ToolRecord } from './tool-record.js';
import type { TightPostings } from './compacted-postings.js';

// entry codes staged per chunk (64 KB at a byte each)
const CHUNK = 1 << 16;
// tools whose entries are placed between two stops of `tightSteps`
const PLACE_STEP = 2048;
const FIELD_MASK = 15;

/**
 * The postings of a first build, each tool's entries staged as it is analysed and placed in tight arrays once every
 * tool is: a build that added each tool's entries to lists grown as they filled (each moved, with room to spare, at
 * every doubling) held ~380 MB of arrays at 100,000 tools, the peak of a cold `hldp serve` (612 MB, issue #18). Staged
 * are only the codes, in chunks as narrow as they fit, in the order of each tool's record (its term ids ascending, each
 * term's fields ascending): the record says which term and how many fields each code is of. The tight arrays are
 * exactly what adding each tool in turn and compacting gave (the same lists, each in slot order).
 */
export class PostingsBuild {
  readonly #chunks: Array<NarrowArray | undefined> = [];
  #filled = CHUNK;
  #largest = 0;

  constructor(private readonly postings: Postings) {}

  /** stages the entries of `document`, whose record is `record`, under `slot` (from `nextSlot`), and counts them */
  add(slot: number, record: ToolRecord, document: IndexedDocument, dictionary: TermDictionary): void {
    const { postings } = this;
    const entries = postings.entriesOf(slot, document, dictionary);
    const ids = record.termIds();
    const masks = record.termFieldMasks();
    if (entries.size !== ids.length) throw new Error(`search index: tool slot ${slot} has ${entries.size} terms in its fields and ${ids.length} in its record`);
    for (let index = 0; index < ids.length; index++) {
      const term = ids[index]!;
      const codes = entries.get(term);
      if (codes === undefined || codes.length !== fieldsIn(masks[index]!)) throw new Error(`search index: tool slot ${slot} has term ${term} in other fields than its record says`);
      for (const code of codes) {
        this.#stage(code);
        postings.fieldCounts[term * FIELD_COUNT + (code & FIELD_MASK)]! += 1;
      }
      postings.lengths[term]! += codes.length;
    }
    postings.alive[slot] = 1;
  }

  #stage(code: number): void {
    if (this.#filled === CHUNK) {
      this.#chunks.push(new Uint8Array(CHUNK));
      this.#filled = 0;
    }
    const last = this.#chunks.length - 1;
    const chunk = holding(this.#chunks[last]!, code);
    this.#chunks[last] = chunk;
    chunk[this.#filled++] = code;
    if (code > this.#largest) this.#largest = code;
  }

  /**
   * The staged entries placed in tight arrays (each term's list in the order of `records`, each record's position its
   * slot), a few tools a step; each chunk is let go once placed. The postings' term and field counts are the build's.
   */
  *tightSteps(records: readonly ToolRecord[]): Generator<void, TightPostings, void> {
    const { lengths } = this.postings;
    const starts = new Int32Array(lengths.length);
    let total = 0;
    for (let term = 0; term < lengths.length; term++) {
      starts[term] = total;
      total += lengths[term]!;
    }
    const slots = new Int32Array(total);
    const codes = arrayOf(widthFor(this.#largest), total);
    const next = starts.slice();
    let chunk = 0;
    let at = 0;
    for (let position = 0; position < records.length; position++) {
      if (position % PLACE_STEP === PLACE_STEP - 1) yield;
      const record = records[position]!;
      const ids: RecordNumbers = record.termIds();
      const masks = record.termFieldMasks();
      for (let index = 0; index < ids.length; index++) {
        const term = ids[index]!;
        for (let count = fieldsIn(masks[index]!); count > 0; count--) {
          if (at === CHUNK) {
            this.#chunks[chunk++] = undefined;
            at = 0;
          }
          const place = next[term]!++;
          slots[place] = position;
          codes[place] = this.#chunks[chunk]![at++]!;
        }
      }
    }
    this.#chunks.length = 0;
    const fieldLengths = narrowed(resized(this.postings.fieldLengths, records.length * FIELD_COUNT));
    return { starts, lengths: lengths.slice(), capacities: lengths.slice(), slots, codes, fieldLengths };
  }
}

// how many fields a term's mask has
function fieldsIn(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}
