import { close, fstat, open as openDescriptor, read, readSync, rmSync } from 'node:fs';
import { endianness } from 'node:os';
import { promisify } from 'node:util';
import type { ToolSource } from '../core/index.js';
import type { ScanEntry } from './build-index.js';
import { entryTexts, OpenFile, type EntryText } from './entry-texts.js';
import type { StoredIndex } from './stored-index.js';

import { TRAILER_BYTES, type TailLine } from './cache-file-writer.js';

export { writeCacheFile } from './cache-file-writer.js';

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

// bytes read from the file at once when an entry is asked for right after the block read last ends: the entries after it
// in the block are then read without another call (a reader that makes every tool reads the file in a few hundred
// reads at 100,000 tools)
const BLOCK_BYTES = 1 << 20;
// bytes read for an entry asked for elsewhere (a call by name, the warm-up's tools spread over the registry): a line is
// ~1-2 KB, and each 1 MiB block was fresh memory the process touched, ~5 ms of page faults a block on a virtual
// machine (issue #18: the warm-up read 10-20 of them at 100,000 tools)
const LONE_BLOCK_BYTES = 1 << 14;

/**
 * The entry lines of one file, read from it when first asked for: a call by name needs one tool, so a server starting
 * from a 134 MB scan (100,000 tools) reads its header and index, not its entries (~0.6 s of CPU and the file's size
 * in memory). An entry parsed is not held by the list (issue #18: a server held every definition after preparing its
 * matcher), only while something holds it or its tool: asked for again meanwhile, it is that very object; after, its
 * line is parsed again.
 */
export class CachedEntries implements EntryList {
  // an entry adopted is held; one parsed, weakly
  private readonly made: Array<ScanEntry | WeakRef<ScanEntry> | undefined>;
  // an entry stays while its tool's source does: the index's tool, or a copy of it with fewer aliases, is that entry's
  private readonly owners = new WeakMap<ToolSource, ScanEntry>();
  private block: Buffer = Buffer.alloc(0);
  private blockStart = 0;

  private readonly file: OpenFile;

  /** `starts[i]` is where line i begins in the file; `starts[length]` is its end */
  constructor(
    private readonly path: string,
    descriptor: number,
    private readonly starts: Float64Array,
  ) {
    this.made = new Array(starts.length - 1);
    this.file = new OpenFile(descriptor);
  }

  get length(): number {
    return this.made.length;
  }

  /** The entry at that position (the same object while anything holds it or its tool); throws, and removes the file, when its line is damaged. */
  at(position: number): ScanEntry | undefined {
    if (position < 0 || position >= this.made.length) return undefined;
    let entry = this.madeAt(position);
    if (entry === undefined) {
      entry = this.parse(position);
      this.made[position] = new WeakRef(entry);
      if ('tool' in entry && entry.tool) this.owners.set(entry.tool.source, entry);
    }
    return entry;
  }

  /**
   * The entry at that position as `at` gives it when it was made before; else parsed from its line and not kept, so a
   * reader of every entry once (`hldp scan --json`) holds one at a time: a later `at` makes another object.
   */
  peek(position: number): ScanEntry | undefined {
    if (position < 0 || position >= this.made.length) return undefined;
    return this.madeAt(position) ?? this.parse(position);
  }

  private madeAt(position: number): ScanEntry | undefined {
    const made = this.made[position];
    return made instanceof WeakRef ? made.deref() : made;
  }

  private parse(position: number): ScanEntry {
    const text = this.line(position);
    let entry: ScanEntry;
    try {
      entry = JSON.parse(text.toString('latin1')) as ScanEntry;
    } catch (error) {
      throw this.damaged(position, (error as Error).message);
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.folder !== 'string' || typeof entry.oid !== 'string' || !Array.isArray(entry.diagnostics)) throw this.damaged(position, 'not an entry');
    entryTexts.set(entry, { file: this.file, start: this.starts[position]!, length: text.length });
    return entry;
  }

  /** Where line `position`'s text lies in this file (without its newline), made or not: what a write after a rescan copies. */
  textAt(position: number): EntryText | undefined {
    if (position < 0 || position >= this.made.length) return undefined;
    return { file: this.file, start: this.starts[position]!, length: this.starts[position + 1]! - this.starts[position]! - 1 };
  }

  /** Makes `entry` the one at that position (an entry this file's line was written from): kept, its text this line. */
  adopt(position: number, entry: ScanEntry): void {
    entryTexts.set(entry, { file: this.file, start: this.starts[position]!, length: this.starts[position + 1]! - this.starts[position]! - 1 });
    this.made[position] = entry;
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

  // line `position` without its newline, from the block that holds it (read now if it is not the last one read). The
  // lines' starts are read from the file as bytes, unchecked (100,000 of them at start): a line is checked as it is
  // read, between the first line's start and the last one's end, right after a newline and ending at one
  private line(position: number): Buffer {
    const start = this.starts[position]!;
    const end = this.starts[position + 1]!;
    const last = this.starts[this.made.length]!;
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= this.starts[0]! && end > start && end <= last)) throw this.damaged(position, 'its line is not among the lines');
    // from the newline before it (the header's, for the first line)
    const from = start - 1;
    if (from < this.blockStart || end > this.blockStart + this.block.length) {
      // a reader going through the lines in order reaches the block's end; any other gets a small block
      const inOrder = from >= this.blockStart && from <= this.blockStart + this.block.length && this.block.length > 0;
      const size = Math.max(inOrder ? BLOCK_BYTES : LONE_BLOCK_BYTES, end - from);
      const block = Buffer.allocUnsafe(Math.min(size, last - from));
      let read: number;
      try {
        read = readSync(this.file.descriptor, block, 0, block.length, from);
      } catch (error) {
        throw this.damaged(position, (error as Error).message);
      }
      if (read < end - from) throw this.damaged(position, 'the file is shorter than its index says');
      this.block = block.subarray(0, read);
      this.blockStart = from;
    }
    const text = this.block.subarray(from - this.blockStart, end - this.blockStart);
    if (text[0] !== NEWLINE || text[text.length - 1] !== NEWLINE) throw this.damaged(position, 'a line does not begin and end where its start says');
    return text.subarray(1, text.length - 1);
  }
}

/**
 * Reads a cache file written by `writeCacheFile` if its header says `parser`; anything else (other version, torn) is a
 * miss. Only the header and the tail the trailer points to are read (the stored index and where each line starts);
 * entries are read when asked for.
 */
export async function readCacheFile(path: string, parser: string): Promise<CacheFile | undefined> {
  let descriptor: number;
  try {
    // a plain descriptor, not a FileHandle: a handle closes its descriptor when it is collected, under the entries
    descriptor = await openAsync(path, 'r');
  } catch {
    return undefined;
  }
  let kept = false;
  try {
    const { size } = await fstatAsync(descriptor);
    const tailStart = await indexStart(descriptor, size);
    if (tailStart === undefined) return undefined;
    const head = await readLines(descriptor, 1, tailStart);
    if (!head) return undefined;
    // the file is ASCII (written so): read as latin1, it skips UTF-8 decoding, and JSON.parse reads one-byte strings faster
    const header = JSON.parse(head.lines[0]!) as CacheHeader;
    if (header.parser !== parser || !Number.isSafeInteger(header.entries) || header.entries < 0) return undefined;
    const tail = Buffer.alloc(size - TRAILER_BYTES - tailStart);
    if ((await readAsync(descriptor, tail, 0, tail.length, tailStart)).bytesRead !== tail.length) return undefined;
    const read = readTail(tail, header.entries);
    // the lines do not begin after the header and end where the tail begins: torn, or not this layout
    if (!read || read.starts[0] !== head.end || read.starts[header.entries] !== tailStart) return undefined;
    const entries = new CachedEntries(path, descriptor, read.starts);
    kept = true;
    return { header, index: read.index, entries };
  } catch {
    return undefined;
  } finally {
    // the entry list keeps the descriptor (closed when the list is collected)
    if (!kept) await closeAsync(descriptor).catch(() => undefined);
  }
}

// The tail as `tailChunkSteps` writes it (layout 7), or undefined when it is not that: its sizes must add up to its bytes
function readTail(tail: Buffer, entries: number): { starts: Float64Array; index: StoredIndex | undefined } | undefined {
  const lineEnd = tail.indexOf(NEWLINE);
  if (lineEnd < 0) return undefined;
  const line = JSON.parse(tail.toString('latin1', 0, lineEnd)) as Partial<TailLine> | null;
  if (typeof line !== 'object' || line === null || line.layout !== 7 || line.byteOrder !== endianness() || !isCount(line.tools) || !isCount(line.namesBytes) || !Array.isArray(line.aliases)) return undefined;
  const { tools, namesBytes, index, toolAliasesBytes, factsBytes } = line;
  if (!(toolAliasesBytes === null || isCount(toolAliasesBytes)) || !(factsBytes === null || isCount(factsBytes))) return undefined;
  if (typeof index !== 'object' || Array.isArray(index) || (index === null && (tools > 0 || namesBytes > 0 || line.aliases.length > 0 || toolAliasesBytes !== null || factsBytes !== null))) return undefined;
  const kindsBytes = index ? entries : 0;
  let at = lineEnd + 1;
  if (tail.length !== at + 8 * (entries + 1) + 4 * tools + kindsBytes + namesBytes + (toolAliasesBytes ?? 0) + (factsBytes ?? 0)) return undefined;
  // copied out of the tail (aligned, and the tail let go): views, not a number parsed at a time
  const starts = new Float64Array(entries + 1);
  new Uint8Array(starts.buffer).set(tail.subarray(at, (at += starts.byteLength)));
  if (!index) return { starts, index: undefined };
  const positions = new Uint32Array(tools);
  new Uint8Array(positions.buffer).set(tail.subarray(at, (at += positions.byteLength)));
  const kinds = tail.toString('latin1', at, (at += kindsBytes));
  const names = tools === 0 ? [] : tail.toString('utf8', at, at + namesBytes).split('\n');
  at += namesBytes;
  // each name ends with a newline: one more piece than names, the last empty
  if (tools > 0 && (names.length !== tools + 1 || names.pop() !== '')) return undefined;
  const texts: Pick<StoredIndex, 'toolAliases' | 'facts'> = {};
  if (toolAliasesBytes !== null) texts.toolAliases = tail.toString('utf8', at, (at += toolAliasesBytes));
  if (factsBytes !== null) texts.facts = tail.toString('utf8', at, (at += factsBytes));
  return { starts, index: { ...index, ...texts, positions, aliases: line.aliases, names, kinds } };
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

// where the stored index begins, as the file's trailer says; undefined when the file has no trailer of this layout
async function indexStart(descriptor: number, size: number): Promise<number | undefined> {
  if (size < TRAILER_BYTES) return undefined;
  const trailer = Buffer.alloc(TRAILER_BYTES);
  if ((await readAsync(descriptor, trailer, 0, TRAILER_BYTES, size - TRAILER_BYTES)).bytesRead !== TRAILER_BYTES) return undefined;
  const text = trailer.toString('latin1');
  if (!/^[0-9a-f]{16}\n$/.test(text)) return undefined;
  const start = Number.parseInt(text, 16);
  return Number.isSafeInteger(start) && start < size - TRAILER_BYTES ? start : undefined;
}

const openAsync = promisify(openDescriptor);
const fstatAsync = promisify(fstat);
const readAsync = promisify(read);
const closeAsync = promisify(close);

// the first `count` lines of the file, as text, and where the next one begins; undefined if the file has fewer
async function readLines(descriptor: number, count: number, size: number): Promise<{ lines: string[]; end: number } | undefined> {
  let buffer = Buffer.alloc(Math.min(size, 1 << 16));
  let filled = 0;
  const lines: string[] = [];
  let lineStart = 0;
  for (;;) {
    let newline = buffer.indexOf(NEWLINE, lineStart);
    while (newline >= 0 && newline < filled) {
      lines.push(buffer.toString('latin1', lineStart, newline));
      lineStart = newline + 1;
      if (lines.length === count) return { lines, end: lineStart };
      newline = buffer.indexOf(NEWLINE, lineStart);
    }
    if (filled === size) return undefined;
    if (filled === buffer.length) {
      const larger = Buffer.alloc(Math.min(size, buffer.length * 2));
      buffer.copy(larger, 0, 0, filled);
      buffer = larger;
    }
    const { bytesRead } = await readAsync(descriptor, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) return undefined;
    filled += bytesRead;
  }
}

const NEWLINE = 0x0a;

