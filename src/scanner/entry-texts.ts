import { closeSync } from 'node:fs';
import type { ScanEntry } from './build-index.js';

// a file stays open while an entry list or an entry's text refers to it, and is closed once nothing does; a file
// replaced or pruned meanwhile is still read through its descriptor (a cache file is written by rename, or after the
// path was unlinked: never changed in place)
const openFiles = new FinalizationRegistry<number>((descriptor) => {
  try {
    closeSync(descriptor);
  } catch {
    // already closed
  }
});

/** A cache file's descriptor, closed once this is collected. */
export class OpenFile {
  constructor(readonly descriptor: number) {
    openFiles.register(this, descriptor);
  }
}

// A rescan writes its unchanged entries back as they were, instead of serialising 10,000 definitions again (~100 ms
// at 10,000 tools); their texts are read again from the file, not kept in memory: at 100,000 tools they were 130 MB
// outside the heap for as long as the server ran.
/**
 * Where the text each entry was read from or last written as lies (ASCII bytes): a file kept open, the line's start
 * and its length without the newline.
 */
export const entryTexts = new WeakMap<ScanEntry, EntryText>();

/** Where one entry's text lies: a file kept open, the line's start and its length without the newline. */
export interface EntryText {
  file: OpenFile;
  start: number;
  length: number;
}
