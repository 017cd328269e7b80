import zlib from 'node:zlib';
import { applyDelta } from './git-delta.js';
import { TYPES, type ObjectType } from './pack-store.js';

// The objects of a pack being indexed, and what of their inflated bytes the indexer holds at once.

/**
 * What the indexer holds of a pack's inflated bytes at once: entries' data as read, and the contents of bases whose
 * deltas are still to be resolved. Past it, an object is inflated again (and a delta's result made again) when it is
 * needed: a pack is as many objects of up to `maxObjectBytes` as its sender likes (a thousand 64 MiB blobs of zeros
 * deflate to ~64 MB), and holding them all held gigabytes. A 100,000-tool clone's objects fit within it.
 */
export const HOLD_BYTES = 128 * 1024 * 1024;

/**
 * What indexing a pack may make in all, inflated or resolved (a second time included), before the pack is refused:
 * 16 times the pack, and at least 1 GiB. A delta of ~30 bytes states a 64 MiB object, so a pack of a few kilobytes
 * made gigabytes, minutes of CPU. A 100,000-tool clone makes ~100 MB from its 16 MB pack.
 */
export function makeLimit(packBytes: number): number {
  return Math.max(MIN_MAKE_BYTES, 16 * packBytes);
}

const MIN_MAKE_BYTES = 1024 * 1024 * 1024;

/**
 * What making an object again counts against `makeLimit` at the least (re-inflating a delta's data, re-applying a
 * delta): the limit counted bytes, not work, and a chain of 1-byte deltas whose bases a full hold let go was made
 * again from its root at every step (~5 counted bytes each: a 0.27 MB pack, 207 s of CPU). At 4 KiB a pack may make
 * again at most ~260,000 times, which a clone whose objects fit the hold never does.
 */
export const REMAKE_MIN_BYTES = 4096;

const EMPTY = Buffer.alloc(0);

/** One object of the pack (a class: 200,000 of them at 100,000 tools, each of one shape, its fields set from the start). */
export class Entry {
  /** inflated: a delta's instructions, or a whole object's content until its deltas are resolved (absent once let go) */
  data: Buffer | undefined = undefined;
  /** a whole object too large to hold, hashed as it streamed: no delta may be made on it */
  streamed = false;
  /** a thin pack's base from outside it, held whole (it is appended to the pack) */
  outside: Buffer | undefined = undefined;
  /** once known: the entry its delta is on */
  base: Entry | undefined = undefined;
  /** its deltas not yet resolved */
  pending = 0;
  /** once resolved */
  type: ObjectType | undefined = undefined;
  oid: string | undefined = undefined;
  depth = 0;

  constructor(
    readonly offset: number,
    /** the entry's bytes end here (header and zlib stream): what its CRC-32 covers */
    readonly end: number,
    readonly crc: number,
    readonly kind: number,
    /** where its zlib stream starts, and what it inflates to */
    readonly dataStart: number,
    readonly size: number,
    readonly baseOffset: number | undefined,
    readonly baseOid: string | undefined,
  ) {}

  /** A whole object, its id known. */
  static whole(offset: number, end: number, crc: number, type: ObjectType, dataStart: number, size: number, oid: string): Entry {
    const entry = new Entry(offset, end, crc, TYPES.indexOf(type), dataStart, size, undefined, undefined);
    entry.type = type;
    entry.oid = oid;
    return entry;
  }
}

/** An entry's zlib stream inflated to exactly `size` bytes, and how many of the pack's bytes the stream took. */
export function inflateAt(pack: Buffer, start: number, trailer: number, size: number, offset: number): { data: Buffer; consumed: number } {
  // an output chunk of the object's own size: with zlib's default 16 KB chunk, each small object kept its chunk alive
  // (a 100,000-tool clone's 200,000 objects: ~3 GB); one byte more, so that a chunk filled exactly is not followed by a
  // second one as large (see `inflateEntry` in pack-store.ts)
  const { buffer: data, engine } = zlib.inflateSync(pack.subarray(start, trailer), { info: true, maxOutputLength: Math.max(size, 1), chunkSize: Math.max(size + 1, zlib.constants.Z_MIN_CHUNK) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  if (data.length !== size) throw new Error(`corrupt pack: an object at ${offset} inflated to ${data.length} bytes where its header says ${size}`);
  return { data, consumed: engine.bytesWritten };
}

/**
 * The inflated bytes the indexer holds, within `limit`: entries' data kept as read while there is room, the contents
 * of bases whose deltas wait kept by recent use. What is not held is made again when needed; all that is made counts against `makeLimit`, what is made again at least `REMAKE_MIN_BYTES` a time.
 */
export class Held {
  private bytes = 0;
  private madeBytes = 0;
  private readonly makeLimit: number;
  // insertion order is recency: the first is the least recently used
  private readonly contents = new Map<Entry, Buffer>();

  constructor(
    private readonly pack: Buffer,
    private readonly trailer: number,
    readonly maxObjectBytes: number,
    private readonly limit: number,
  ) {
    this.makeLimit = makeLimit(pack.length);
  }

  /** Counts bytes inflated or made, refusing the pack past its limit (checked before the work, from the object's stated size). */
  made(bytes: number): void {
    if (!((this.madeBytes += bytes) <= this.makeLimit)) {
      throw new Error(`fetched pack: its objects would make more than the ${this.makeLimit} bytes a pack of ${this.pack.length} bytes may make here (inflated and resolved)`);
    }
  }

  /** Holds an entry's data as read, if there is room. */
  keep(entry: Entry, data: Buffer): void {
    // empty data is not kept (a Buffer each, counted as nothing: millions of empty blobs held gigabytes of heap)
    if (data.length === 0 || this.bytes + data.length > this.limit) return;
    entry.data = data;
    this.bytes += data.length;
  }

  /** Lets an entry's data go. */
  drop(entry: Entry): void {
    if (entry.data === undefined) return;
    this.bytes -= entry.data.length;
    entry.data = undefined;
  }

  /** An entry's inflated data: held, or inflated again. */
  dataOf(entry: Entry): Buffer {
    if (entry.data !== undefined) return entry.data;
    if (entry.size === 0) return EMPTY;
    this.made(Math.max(entry.size, REMAKE_MIN_BYTES));
    return inflateAt(this.pack, entry.dataStart, this.trailer, entry.size, entry.offset).data;
  }

  /** Holds a base's content while its deltas wait, letting the least recently used go past the limit. */
  hold(entry: Entry, content: Buffer): void {
    if (entry.outside !== undefined || this.contents.has(entry)) return;
    this.contents.set(entry, content);
    this.bytes += content.length;
    // only when full: a walk from the map's start passes every entry deleted since it was last compacted
    if (this.bytes <= this.limit) return;
    for (const [oldest, bytes] of this.contents) {
      if (this.bytes <= this.limit) break;
      this.contents.delete(oldest);
      this.bytes -= bytes.length;
    }
  }

  /** A base whose deltas are all resolved: its content goes. */
  release(entry: Entry): void {
    const content = this.contents.get(entry);
    if (content === undefined) return;
    this.contents.delete(entry);
    this.bytes -= content.length;
  }

  /** An object's content: held, or made again from the nearest held base up its chain. */
  contentOf(entry: Entry): Buffer {
    const chain: Entry[] = [];
    let at = entry;
    let content: Buffer | undefined;
    for (;;) {
      if (at.outside !== undefined) content = at.outside;
      else if ((content = this.contents.get(at)) !== undefined) {
        this.contents.delete(at);
        this.contents.set(at, content);
      } else if (at.base === undefined) content = this.dataOf(at);
      if (content !== undefined) break;
      chain.push(at);
      at = at.base!;
    }
    for (let index = chain.length - 1; index >= 0; index--) {
      const delta = chain[index]!;
      // made before (it was resolved, then let go): made again
      content = applyDelta(this.dataOf(delta), content, this.maxObjectBytes);
      this.made(Math.max(content.length, REMAKE_MIN_BYTES));
    }
    return content;
  }
}

