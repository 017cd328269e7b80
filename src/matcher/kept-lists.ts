import { rmSync } from 'node:fs';
import type { NarrowArray, Width } from './narrow-array.js';
import type { RecordFile } from './record-file.js';

/** Where the postings' tight slots and codes lie in a search index file, and how many tools its slots may name. */
export interface ListsPlace {
  slots: number;
  codes: number;
  codeWidth: Width;
  tools: number;
}

/**
 * A search index file's list of a term whose slots name no tool of it: the file is not this code's (or was changed
 * under it). The file is removed when this is thrown, so that the index is built again, never misread.
 */
export class UnreadableList extends Error {}

/**
 * The postings' lists of a search index file, left in the file and read, each the first time a search or an update
 * needs it, into the tight arrays made for them (issue #18: a restart read and checked all of them, ~38 MB of fresh
 * pages at 100,000 tools, before it could match; a request reads the lists of its few terms). Each list's slots are
 * checked as it is read, as the whole file's were: a slot outside the tools throws `UnreadableList`.
 */
export class KeptLists {
  // per term id, 1 while its list is still in the file
  private readonly unread: Uint8Array;
  private left: number;

  constructor(
    private readonly file: RecordFile,
    private readonly place: ListsPlace,
    private readonly path: string | undefined,
    lengths: Int32Array,
  ) {
    this.unread = new Uint8Array(lengths.length);
    let left = 0;
    for (let term = 0; term < lengths.length; term++) {
      if (lengths[term] === 0) continue;
      this.unread[term] = 1;
      left += 1;
    }
    this.left = left;
  }

  /** Whether every list has been read. */
  get done(): boolean {
    return this.left === 0;
  }

  /** Reads `term`'s list (`length` entries from `start`) into `slots` and `codes`, unless it was read already. */
  read(term: number, start: number, length: number, slots: Int32Array, codes: NarrowArray): void {
    if (this.unread[term] !== 1) return;
    const { place } = this;
    const slotBytes = new Uint8Array(slots.buffer, slots.byteOffset + start * 4, length * 4);
    const codeBytes = new Uint8Array(codes.buffer, codes.byteOffset + start * place.codeWidth, length * place.codeWidth);
    const read = this.file.readBytes(slotBytes, place.slots + start * 4) && this.file.readBytes(codeBytes, place.codes + start * place.codeWidth);
    if (!read || !slotsBelow(slots, start, start + length, place.tools)) this.refuse(term);
    this.unread[term] = 0;
    this.left -= 1;
  }

  // the file is removed (the next start builds the index again) and the reader told
  private refuse(term: number): never {
    if (this.path !== undefined) {
      try {
        rmSync(this.path, { force: true });
      } catch {
        // a file that cannot be removed is refused again at its next read
      }
    }
    throw new UnreadableList(`search index file ${this.path ?? ''}: the list of term ${term} names no tool of it (or the file ended): built again`);
  }
}

// whether slots[from..to] are each a tool's, 0 to tools - 1
function slotsBelow(slots: Int32Array, from: number, to: number, tools: number): boolean {
  for (let slot = from; slot < to; slot++) if (slots[slot]! < 0 || slots[slot]! >= tools) return false;
  return true;
}
