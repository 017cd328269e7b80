import { open as openDescriptor, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { promisify } from 'node:util';
import { runLettingGo } from '../core/index.js';
import type { ScanEntry } from './build-index.js';
import type { CacheHeader } from './cache-file.js';
import { entryTexts, OpenFile, type EntryText } from './entry-texts.js';
import { asciiJson } from './entry-summary.js';
import type { PatchedEntries } from './patched-entries.js';
import type { StoredIndex } from './stored-index.js';

const openAsync = promisify(openDescriptor);

const NEWLINE = 0x0a;

/** The last line of a cache file: where its stored index begins, as 16 hex digits, and a newline. */
export const TRAILER_BYTES = 17;

/** What the first line of a cache file's tail says of the rest (layout 7): read before the bytes it describes. */
export interface TailLine {
  layout: 7;
  /** the host's byte order, which the numbers after this line are written in: another host's file is a miss */
  byteOrder: 'BE' | 'LE';
  /** how many tools the stored index has (0 without one) */
  tools: number;
  /** the bytes of the tools' names, each followed by a newline */
  namesBytes: number;
  aliases: StoredIndex['aliases'];
  /** the UTF-8 bytes of the stored index's `toolAliases` after the names, or null when it keeps none */
  toolAliasesBytes: number | null;
  /** the UTF-8 bytes of its `facts` after those, or null when it keeps none */
  factsBytes: number | null;
  /** the stored index but for its positions, names, kinds and the two texts above, or null when the file keeps none */
  index: Omit<StoredIndex, 'positions' | 'aliases' | 'names' | 'kinds' | 'toolAliases' | 'facts'> | null;
}

// entries written per slice, with the event loop let go between slices: serialising 100,000 entries (tens of MB)
// in one go would hold every request for a large part of a second
const SLICE = 500;

/**
 * Writes the header, then each entry on a line of its own, ASCII only (every other character as a JSON `\u` escape,
 * so no line holds a raw newline), a slice of entries at a time, then the tail (`tailChunkSteps`) and a trailer saying
 * where the tail begins (`TRAILER_BYTES`: 16 hex digits and a newline). An entry read from a cache file or written
 * before is copied from that file's line; afterwards each entry's text is this file's line. Only a slice's texts are
 * held at once: with the lengths before the entries (layout 4), every text had to be made before the first was
 * written (~130 MB at 100,000 tools, the peak of a cold scan's write). Of entries patched over a cache file, the
 * unchanged lines are copied from that file without being parsed.
 */
export async function writeCacheFile(path: string, header: CacheHeader, index: StoredIndex | undefined, entries: readonly ScanEntry[] | PatchedEntries): Promise<void> {
  const lengths: number[] = new Array(entries.length);
  const starts = new Float64Array(entries.length + 1);
  // a file at this path may be one whose lines are being copied: it is unlinked (still read through its descriptor), never overwritten
  await rm(path, { force: true });
  const handle = await open(path, 'wx');
  const head = `${asciiJson(header)}\n`;
  let at = head.length;
  try {
    await writeWhole(handle, [Buffer.from(head, 'latin1')]);
    // one buffer for the lines copied from files, reused by every slice once its write is done (issue #18: a fresh
    // ~650 KB buffer a slice made 139 MB of garbage outside the heap at 100,000 tools, and its pages fresh each time)
    const copied = { buffer: Buffer.allocUnsafeSlow(0) };
    for (let start = 0; start < entries.length; start += SLICE) {
      const end = Math.min(entries.length, start + SLICE);
      const { chunks, lengths: sliceLengths } = linesOf(entries, start, end, copied);
      for (let offset = 0; offset < sliceLengths.length; offset++) {
        lengths[start + offset] = sliceLengths[offset]!;
        starts[start + offset] = at;
        at += sliceLengths[offset]! + 1;
      }
      await writeWhole(handle, chunks);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    starts[entries.length] = at;
    await writeWhole(handle, await runLettingGo(tailChunkSteps(index, starts)));
  } finally {
    await handle.close();
  }
  // each entry's text is now this file's line (the files they were copied from can be closed)
  let written: OpenFile;
  try {
    written = new OpenFile(await openAsync(path, 'r'));
  } catch {
    return;
  }
  if (!Array.isArray(entries)) {
    // an unchanged entry's text stays its line in the file patched over
    for (const [position, entry] of (entries as PatchedEntries).changed) entryTexts.set(entry, { file: written, start: starts[position]!, length: lengths[position]! });
    return;
  }
  (entries as readonly ScanEntry[]).forEach((entry, position) => {
    entryTexts.set(entry, { file: written, start: starts[position]!, length: lengths[position]! });
  });
}

// the lines of entries [from, to), each followed by its newline, as chunks to write, and each line's length without it:
// those read from no file made now, the others read back from their files, a run of lines that follow one another in
// one file in one read into `copied.buffer` (grown when a run needs more; the chunks are written before the next call
// reuses it) and handed on as one chunk; a line that does not read back whole is made again from its entry
function linesOf(entries: readonly ScanEntry[] | PatchedEntries, from: number, to: number, copied: { buffer: Buffer }): { chunks: Uint8Array[]; lengths: number[] } {
  const list = entries as readonly ScanEntry[];
  const patched = entries as PatchedEntries;
  const textAt = Array.isArray(entries) ? (position: number): EntryText | undefined => (position < to ? entryTexts.get(list[position]!) : undefined) : (position: number): EntryText | undefined => (position < to ? patched.textAt(position) : undefined);
  const entryAt = Array.isArray(entries) ? (position: number): ScanEntry => list[position]! : (position: number): ScanEntry => patched.peek(position)!;
  const chunks: Uint8Array[] = [];
  const lengths: number[] = [];
  // the copied buffer's bytes handed on so far, in this call
  let used = 0;
  const made = (position: number): void => {
    const text = Buffer.from(asciiJson(entryAt(position)), 'latin1');
    chunks.push(text, LINE_END);
    lengths.push(text.length);
  };
  for (let position = from; position < to; ) {
    const first = textAt(position);
    if (!first) {
      made(position);
      position += 1;
      continue;
    }
    let end = position + 1;
    let bytes = first.length + 1;
    for (let next = textAt(end); end < to && next?.file === first.file && next.start === first.start + bytes; next = textAt(end)) {
      bytes += next.length + 1;
      end += 1;
    }
    if (copied.buffer.length - used < bytes) {
      // the chunks handed on so far keep the old buffer; later runs go into a new one large enough for the slice
      copied.buffer = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * copied.buffer.length));
      used = 0;
    }
    const run = copied.buffer.subarray(used, used + bytes);
    let read = 0;
    try {
      // at most a slice's lines (~650 KB at 100,000 tools), mostly from the page cache: short enough to read here
      read = readSync(first.file.descriptor, run, 0, bytes, first.start);
    } catch {
      // made again below
    }
    // the lines that read back whole, up to the first that did not, go on as one chunk
    let whole = 0;
    for (let offset = 0; position < end; position++) {
      const { length } = textAt(position)!;
      if (whole === offset && offset + length < read && run[offset + length] === NEWLINE) {
        whole = offset + length + 1;
        lengths.push(length);
      } else {
        if (whole > 0) chunks.push(run.subarray(0, whole));
        whole = -1;
        made(position);
      }
      offset += length + 1;
    }
    if (whole > 0) chunks.push(run.subarray(0, whole));
    used += bytes;
  }
  return { chunks, lengths };
}

const LINE_END = Buffer.from('\n');

/**
 * What follows the entries (layout 7): a line of JSON (`TailLine`: the stored index without its per-tool arrays and
 * texts, and their sizes), then where each entry's line starts and where the last ends (`starts`: 64-bit floats), each
 * tool's entry position (32-bit), the entries' kinds (a letter each; none without an index), the tools' names (each
 * followed by a newline), the tools' aliases and facts as the UTF-8 of their JSON texts, and the trailer, the numbers in
 * this host's byte order. A warm start at 100,000 tools so copies its tail's numbers as bytes and splits one string of
 * names, where it parsed JSON arrays of 100,000 names, positions and lengths and added the lengths up one by one; and
 * the aliases' 5 MB text is copied as it is, where escaping it into the JSON line and making that ASCII held the event
 * loop ~100 ms of CPU at each save, and parsing it back ~20 ms at each start (issue #18). Made a step at a time, the event
 * loop let go between them: the names' join and the aliases' text made UTF-8 in one turn held it 40-70 ms of CPU after
 * a restart onto a newer commit listened, at 100,000 tools; the pieces are the same bytes.
 */
function* tailChunkSteps(index: StoredIndex | undefined, starts: Float64Array): Generator<void, Uint8Array[], void> {
  // a name is a folder's name (ASCII letters, digits, '.', '_', '-'): a newline in one would split it in two
  if (index && index.names.some((name) => name.includes('\n'))) throw new Error('a tool name holds a newline: the scan cannot be kept');
  if (index && (index.kinds.length !== starts.length - 1 || /[^\x20-\x7e]/.test(index.kinds))) throw new Error('the stored index\'s kinds are not one letter an entry');
  yield;
  const namesBytes = index && index.names.length > 0 ? yield* utf8Steps(`${index.names.join('\n')}\n`) : [];
  const positions = index?.positions ?? new Uint32Array(0);
  const toolAliases = index?.toolAliases === undefined ? undefined : yield* utf8Steps(index.toolAliases);
  const facts = index?.facts === undefined ? undefined : yield* utf8Steps(index.facts);
  const line: TailLine = { layout: 7, byteOrder: endianness(), tools: positions.length, namesBytes: bytesOf(namesBytes), aliases: index?.aliases ?? [], toolAliasesBytes: toolAliases ? bytesOf(toolAliases) : null, factsBytes: facts ? bytesOf(facts) : null, index: index ? withoutArrays(index) : null };
  const at = starts[starts.length - 1]!;
  return [
    Buffer.from(`${asciiJson(line)}\n`, 'latin1'),
    new Uint8Array(starts.buffer, starts.byteOffset, starts.byteLength),
    new Uint8Array(positions.buffer, positions.byteOffset, positions.byteLength),
    Buffer.from(index?.kinds ?? '', 'latin1'),
    ...namesBytes,
    ...(toolAliases ?? []),
    ...(facts ?? []),
    Buffer.from(`${at.toString(16).padStart(TRAILER_BYTES - 1, '0')}\n`, 'latin1'),
  ];
}

// characters made UTF-8 a step (a few ms of CPU)
const UTF8_PIECE = 1 << 19;

// the UTF-8 of `text`, a piece a step, a surrogate pair never split between two pieces (so the pieces are its bytes)
function* utf8Steps(text: string): Generator<void, Buffer[], void> {
  const pieces: Buffer[] = [];
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + UTF8_PIECE);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to -= 1;
    pieces.push(Buffer.from(text.slice(from, to), 'utf8'));
    from = to;
    yield;
  }
  return pieces;
}

function bytesOf(pieces: readonly Uint8Array[]): number {
  return pieces.reduce((sum, piece) => sum + piece.length, 0);
}

const EMPTY = new Uint8Array(0);

function withoutArrays(index: StoredIndex): NonNullable<TailLine['index']> {
  const { positions: _positions, aliases: _aliases, names: _names, kinds: _kinds, toolAliases: _toolAliases, facts: _facts, ...rest } = index;
  return rest;
}

// A write may be short without an error (a file size limit reached, a disk nearly full: the bytes up to the limit are
// written). The rest is written again, so that the error it then meets (EFBIG, ENOSPC) is thrown: a torn file taken
// for a whole one would be kept as the cache, its trailer missing, and served from while its lines were cut short.
async function writeWhole(handle: FileHandle, chunks: readonly Uint8Array[]): Promise<void> {
  let rest = chunks.filter((chunk) => chunk.length > 0);
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest as Uint8Array[]);
    if (bytesWritten === 0) throw new Error('cache file write made no progress');
    let first = 0;
    while (first < rest.length && bytesWritten >= rest[first]!.length) bytesWritten -= rest[first++]!.length;
    rest = rest.slice(first);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}


/**
 * A cache file written while a scan reads: the header at once, each entry's line appended in order as it is parsed
 * (a slice at a time), then the tail and the trailer, as `writeCacheFile` lays them out. A cold
 * scan of 100,000 tools so holds one slice of entries, not every entry (~216 MB on the main heap).
 */
export class CacheFileStream {
  private readonly starts: Float64Array;
  private count = 0;

  private constructor(
    readonly path: string,
    private readonly handle: Awaited<ReturnType<typeof open>>,
    private at: number,
    private readonly entries: number,
  ) {
    this.starts = new Float64Array(entries + 1);
    this.starts[0] = at;
  }

  /** Creates the file at `path` (replacing none: a file there is unlinked first) and writes its header. */
  static async create(path: string, header: CacheHeader): Promise<CacheFileStream> {
    await rm(path, { force: true });
    const handle = await open(path, 'wx');
    const head = `${asciiJson(header)}\n`;
    try {
      await writeWhole(handle, [Buffer.from(head, 'latin1')]);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new CacheFileStream(path, handle, head.length, header.entries);
  }

  /** Appends the next entries' lines (ASCII JSON without their newlines), in order. */
  async append(lines: readonly Uint8Array[]): Promise<void> {
    if (this.count + lines.length > this.entries) throw new Error(`more entries than the header's ${this.entries}`);
    const chunks: Uint8Array[] = [];
    for (const line of lines) {
      chunks.push(line, LINE_END);
      this.at += line.length + 1;
      this.starts[++this.count] = this.at;
    }
    await writeWhole(this.handle, chunks);
  }

  /** Writes the tail and the trailer and closes the file; returns a descriptor reading it and where each line starts. */
  async finish(index: StoredIndex | undefined): Promise<{ descriptor: number; starts: Float64Array }> {
    if (this.count !== this.entries) throw new Error(`${this.count} entries written, the header says ${this.entries}`);
    try {
      await writeWhole(this.handle, await runLettingGo(tailChunkSteps(index, this.starts)));
    } finally {
      await this.handle.close();
    }
    return { descriptor: await openAsync(this.path, 'r'), starts: this.starts };
  }

  /** Closes and removes the file, written or not. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
