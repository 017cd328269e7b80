import { closeSync, readSync } from 'node:fs';
import type { NarrowArray } from './narrow-array.js';
import type { RecordNumbers } from './tool-record.js';

// a file stays open while its records are read from it, and is closed once nothing refers to them; a file pruned or
// replaced meanwhile is still read through its descriptor (a search index file is written by rename, never in place)
const openFiles = new FinalizationRegistry<number>((descriptor) => {
  try {
    closeSync(descriptor);
  } catch {
    // already closed
  }
});

// numbers read at once when a reader goes through the records in order (an update or a write reads every one): each
// record is then a view of the block, not a read of its own
const BLOCK_NUMBERS = 1 << 17;

/** Where the records' numbers lie in a search index file: the byte they begin at, how many, and their width. */
export interface RecordsPlace {
  position: number;
  length: number;
  width: 2 | 4;
}

/**
 * The records' numbers of a search index file, left in the file and read when a record is first asked for: a request
 * ranks a few hundred tools, and a restart read all of them, 42 MB at 100,000 tools (~0.1 s of CPU, most of it the
 * page faults of fresh memory, and as many MB kept for as long as the server ran: issue #18). A record asked for
 * right after the one before it is read with the ones that follow, a block at a time.
 */
export class RecordFile {
  readonly length: number;
  readonly width: 2 | 4;
  private readonly position: number;
  private block: RecordNumbers;
  private blockFrom = 0;
  // where the last read ended: a read from there (or from the first record) is a reader going in order
  private lastEnd = 0;
  private closed = false;

  /** Takes over `descriptor`: it is closed by `close`, or once this is collected. */
  constructor(
    private readonly descriptor: number,
    { position, length, width }: RecordsPlace,
  ) {
    this.position = position;
    this.length = length;
    this.width = width;
    this.block = this.numbers(0);
    openFiles.register(this, descriptor, this);
  }

  /** Numbers `from` to `to` (not included), read from the file unless the block read last holds them. */
  read(from: number, to: number): RecordNumbers {
    if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && to >= from && to <= this.length)) throw new RangeError(`records' numbers ${from} to ${to} are not among the ${this.length} of the search index file`);
    const inOrder = from === this.lastEnd;
    this.lastEnd = to;
    if (from >= this.blockFrom && to <= this.blockFrom + this.block.length) return this.block.subarray(from - this.blockFrom, to - this.blockFrom);
    const count = inOrder ? Math.min(this.length - from, Math.max(BLOCK_NUMBERS, to - from)) : to - from;
    const numbers = this.numbers(count);
    const bytes = new Uint8Array(numbers.buffer);
    let filled = 0;
    for (let read = -1; filled < bytes.length && read !== 0; filled += read) read = readSync(this.descriptor, bytes, filled, bytes.length - filled, this.position + from * this.width + filled);
    if (filled !== bytes.length) throw new Error(`the search index file ended before its records' numbers did (${from} to ${to} of ${this.length})`);
    if (!inOrder) return numbers;
    this.block = numbers;
    this.blockFrom = from;
    return numbers.subarray(0, to - from);
  }

  /** The numbers in pieces, in order (what a write of the index copies): each a view of a block read. */
  *pieces(): Generator<NarrowArray, void, void> {
    for (let from = 0; from < this.length; from += BLOCK_NUMBERS) {
      this.lastEnd = from;
      yield this.read(from, Math.min(this.length, from + BLOCK_NUMBERS));
    }
  }

  /**
   * Fills `into` from the file's byte `position` (the postings' lists, which share this file's descriptor); false where
   * the file ended first or was closed
   */
  readBytes(into: Uint8Array, position: number): boolean {
    if (this.closed) return false;
    let filled = 0;
    for (let read = -1; filled < into.length && read !== 0; filled += read) read = readSync(this.descriptor, into, filled, into.length - filled, position + filled);
    return filled === into.length;
  }

  /** Closes the file now (a file that was not kept). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    openFiles.unregister(this);
    closeSync(this.descriptor);
  }

  private numbers(count: number): RecordNumbers {
    return this.width === 2 ? new Uint16Array(count) : new Int32Array(count);
  }
}
