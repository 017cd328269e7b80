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
 * The entry lines of one file. Parsing the whole of a 12 MB scan (10,000 tools) is ~100 ms; a call by name needs one
 * tool, so each line is parsed when first asked for, and once. Past a few lines asked for alone, the rest are
 * parsed together: 10,000 small parses cost about twice one parse of them all.
 */
export class CachedEntries implements EntryList {
  private readonly made: Array<ScanEntry | undefined>;
  private alone = 0;

  /** `starts[i]` is where line i begins; `starts[length]` is one past the last line */
  constructor(
    private readonly path: string,
    private buffer: Buffer | undefined,
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
    if (this.alone >= PARSED_ALONE) {
      this.parseRest();
      return this.made[position];
    }
    this.alone++;
    let entry: unknown;
    try {
      entry = JSON.parse(this.buffer!.toString('latin1', this.starts[position]!, this.textEnd(position)));
    } catch (error) {
      throw this.damaged(position, (error as Error).message);
    }
    return this.keep(position, entry);
  }

  /** Every entry, in order. */
  all(): ScanEntry[] {
    if (this.buffer) this.parseRest();
    return this.made as ScanEntry[];
  }

  /**
   * A file whose header and line count are right but one of whose lines is not what was written (a disk fault, a
   * hand edit): never misread, and not read again. Written by rename, a file is never torn this way.
   */
  damaged(position: number | 'entries', reason: string): Error {
    rmSync(this.path, { force: true });
    return new Error(`the scan cache ${this.path} is damaged at ${position === 'entries' ? 'its entries' : `entry ${position}`} (${reason}); it is removed: run the command again to rescan`);
  }

  // the lines are `<entry>,\n`: together, within brackets and without the last comma, they are one JSON array
  private parseRest(): void {
    const count = this.made.length;
    if (count > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(`[${this.buffer!.toString('latin1', this.starts[0]!, this.starts[count]! - 2)}]`);
      } catch (error) {
        throw this.damaged('entries', (error as Error).message);
      }
      if (!Array.isArray(parsed) || parsed.length !== count) throw this.damaged('entries', 'not one entry a line');
      for (let position = 0; position < count; position++) if (!this.made[position]) this.keep(position, parsed[position]);
    }
    // each entry keeps its own slice of the file for a later write; nothing is parsed from it again
    this.buffer = undefined;
  }

  private keep(position: number, entry: unknown): ScanEntry {
    if (typeof entry !== 'object' || entry === null || typeof (entry as ScanEntry).folder !== 'string' || typeof (entry as ScanEntry).oid !== 'string' || !Array.isArray((entry as ScanEntry).diagnostics)) {
      throw this.damaged(position, 'not an entry');
    }
    entryTexts.set(entry as ScanEntry, this.buffer!.subarray(this.starts[position]!, this.textEnd(position)));
    this.made[position] = entry as ScanEntry;
    return entry as ScanEntry;
  }

  private textEnd(position: number): number {
    return this.starts[position + 1]! - 2;
  }
}

// entries parsed one by one before the rest are parsed together
const PARSED_ALONE = 64;

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
      // fewer lines than the header counts, or not the lines written: torn
      if (end < 0 || buffer[end - 1] !== COMMA) return undefined;
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
const COMMA = 0x2c;

// entries written per slice, with the event loop let go between slices: serialising 100,000 entries (tens of MB)
// in one go would hold every request for a large part of a second
const SLICE = 500;

/**
 * Writes the header, the stored index and then each entry on a line of its own, followed by a comma, ASCII only
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

const LINE_END = Buffer.from(',\n');

// every character beyond ASCII, as JSON.stringify leaves them
const NON_ASCII = /[\u0080-\uffff]/g;

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_ASCII, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
