import { rmSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import type { ScanEntry } from './build-index.js';
import type { StoredIndex } from './stored-index.js';

/** What a scan cache file says of itself on its first line. */
export interface CacheHeader {
  parser: string;
  source: string;
  commit: string;
  scanned_at: string;
  /** how many entry lines follow the index line */
  entries: number;
}

/** A scan cache file as read: its header and stored index at once, each entry parsed when first asked for. */
export interface CacheFile {
  header: CacheHeader;
  index: StoredIndex | undefined;
  entries: CachedEntries;
}

/** Entries in order, as an array or a file's lazily parsed lines: what the scanner walks over. */
export interface EntryList {
  readonly length: number;
  at(position: number): ScanEntry | undefined;
}

// The text each entry was read from or written as (ASCII bytes, a slice of the file read, so no copy): a rescan writes
// its unchanged entries back as they were, instead of serialising 10,000 definitions again (~100 ms at 10,000 tools).
const entryTexts = new WeakMap<ScanEntry, Uint8Array>();

/**
 * The entry lines of one file. Parsing the whole of a 12 MB scan (10,000 tools) is ~100-150 ms; a call by name needs
 * one tool, so each line is parsed when first asked for, and once (all of them, one by one, cost about what one
 * parse of the whole file did).
 */
export class CachedEntries implements EntryList {
  private readonly made: Array<ScanEntry | undefined>;

  /** `starts[i]` is where line i begins; `starts[length]` is one past the last line */
  constructor(
    private readonly path: string,
    private readonly buffer: Buffer,
    private readonly starts: Uint32Array,
  ) {
    this.made = new Array(starts.length - 1);
  }

  get length(): number {
    return this.made.length;
  }

  /** The entry at that position (the same object every time); throws, and removes the file, when its line is damaged. */
  at(position: number): ScanEntry | undefined {
    if (position < 0 || position >= this.made.length) return undefined;
    const made = this.made[position];
    if (made) return made;
    // each entry keeps its own slice of the file (no copy) for a later write
    const text = this.buffer.subarray(this.starts[position]!, this.starts[position + 1]! - 1);
    let entry: ScanEntry;
    try {
      entry = JSON.parse(text.toString('latin1')) as ScanEntry;
    } catch (error) {
      throw this.damaged(position, (error as Error).message);
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.folder !== 'string' || typeof entry.oid !== 'string' || !Array.isArray(entry.diagnostics)) throw this.damaged(position, 'not an entry');
    entryTexts.set(entry, text);
    this.made[position] = entry;
    return entry;
  }

  /** Every entry, in order. */
  all(): ScanEntry[] {
    return Array.from({ length: this.made.length }, (_, position) => this.at(position)!);
  }

  /**
   * A file whose header and line count are right but one of whose lines is not what was written (a disk fault, a
   * hand edit): never misread, and not read again. Written by rename, a file is never torn this way.
   */
  damaged(position: number, reason: string): Error {
    rmSync(this.path, { force: true });
    return new Error(`the scan cache ${this.path} is damaged at entry ${position} (${reason}); it is removed: run the command again to rescan`);
  }
}

/** Reads a cache file written by `writeCacheFile` if its header says `parser`; anything else (other version, torn) is a miss. */
export async function readCacheFile(path: string, parser: string): Promise<CacheFile | undefined> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch {
    return undefined;
  }
  try {
    const headerEnd = buffer.indexOf(NEWLINE);
    if (headerEnd < 0) return undefined;
    // the file is ASCII (written so): read as latin1, it skips UTF-8 decoding, and JSON.parse reads one-byte strings faster
    const header = JSON.parse(buffer.toString('latin1', 0, headerEnd)) as CacheHeader;
    if (header.parser !== parser || !Number.isSafeInteger(header.entries) || header.entries < 0) return undefined;
    const indexEnd = buffer.indexOf(NEWLINE, headerEnd + 1);
    if (indexEnd < 0) return undefined;
    const index = JSON.parse(buffer.toString('latin1', headerEnd + 1, indexEnd)) as StoredIndex | null;
    const starts = new Uint32Array(header.entries + 1);
    let start = indexEnd + 1;
    for (let line = 0; line < header.entries; line++) {
      const end = buffer.indexOf(NEWLINE, start);
      // fewer lines than the header counts: torn
      if (end < 0) return undefined;
      starts[line] = start;
      start = end + 1;
    }
    starts[header.entries] = start;
    // more than it counts: not this layout
    if (start !== buffer.length) return undefined;
    return { header, index: index ?? undefined, entries: new CachedEntries(path, buffer, starts) };
  } catch {
    return undefined;
  }
}

const NEWLINE = 0x0a;

// entries written per slice, with the event loop let go between slices: serialising 100,000 entries (tens of MB)
// in one go would hold every request for a large part of a second
const SLICE = 500;

/**
 * Writes the header, the stored index and then each entry on a line of its own, ASCII only
 * (every other character as a JSON `\u` escape, so no line holds a raw newline), a slice of entries at a time.
 */
export async function writeCacheFile(path: string, header: CacheHeader, index: StoredIndex | undefined, entries: readonly ScanEntry[]): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(`${asciiJson(header)}\n${asciiJson(index ?? null)}\n`);
    for (let start = 0; start < entries.length; start += SLICE) {
      const lines: Uint8Array[] = [];
      for (const entry of entries.slice(start, start + SLICE)) {
        let text = entryTexts.get(entry);
        if (!text) {
          text = Buffer.from(asciiJson(entry), 'latin1');
          entryTexts.set(entry, text);
        }
        lines.push(text, LINE_END);
      }
      await handle.writev(lines);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await handle.close();
  }
}

const LINE_END = Buffer.from('\n');

// every character beyond ASCII, as JSON.stringify leaves them
const NON_ASCII = /[\u0080-\uffff]/g;

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_ASCII, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
