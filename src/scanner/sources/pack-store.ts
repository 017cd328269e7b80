import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { BaseCache } from './base-cache.js';
import { applyDelta } from './git-delta.js';
import { inflateEntry } from './pack-inflate.js';
import { PackFile } from './pack-file.js';
import { DELTA_SIZES_BYTES, deltaResultSize, entryStreamHead } from './stream-head.js';

/** The four kinds of git object. */
export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** An object's kind and content (without git's `<type> <size>\0` header). */
export interface GitObject {
  type: ObjectType;
  content: Buffer;
}

/** The object kinds by their number in a pack entry's header. */
export const TYPES: Array<ObjectType | undefined> = [undefined, 'commit', 'tree', 'blob', 'tag'];
/** A pack entry that is a delta against an earlier entry, by distance. */
export const OFS_DELTA = 6;
/** A pack entry that is a delta against an object named by id (in the pack, or, in a thin pack, outside it). */
export const REF_DELTA = 7;
// enough compressed bytes to hold a delta's two size numbers, and no more
const HEAD_BYTES = 512;

/**
 * What a delta chain's bases may hold in memory: a read resolves a chain from the nearest base kept here, not from
 * its root (git's default `pack.depth` is 50: a generated registry's blobs sit on chains of 1-50 deltas, and
 * resolving each from its root inflated ~25 objects per blob). Bounded, as git's own `core.deltaBaseCacheLimit`.
 * 8 MiB, not the 32 it was: at 100,000 generated tools the larger cache saved no CPU measured beside it and held
 * ~24 MB more through the scan (issue #18).
 */
export const BASE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * The largest object the reader makes, whole or as a delta's result or a delta itself: a delta base is read whatever
 * it is, and a pack can state a base of gigabytes that a few kilobytes of copy instructions fill (git's own index-pack
 * would resolve it; a repository on disk is whatever its writer put there). Trees, commits and definitions are far
 * smaller: a `tools/` tree of 100,000 tools is ~4 MB.
 */
export const MAX_OBJECT_BYTES = 64 * 1024 * 1024;

/** A pack: its version-2 index, and its file once an object in it is read (read a window at a time). */
interface Pack {
  name: string;
  /** a short name of its own in this store, for the delta bases' keys (a key made of its 45-character name each read cost more than the look-up) */
  key: string;
  index: Buffer;
  count: number;
  file: PackFile | undefined;
}

/** One entry's header in a pack. */
export interface PackEntry {
  type: number;
  size: number;
  /** where its zlib stream starts */
  data: number;
  baseOffset?: number;
  baseOid?: string;
}

/** How long the packs' files (their descriptors and windows) and the delta bases are kept after the last read: a scan reads thousands in a row. */
export const IDLE_RELEASE_MS = 1000;

/**
 * The packs of one git directory, read with Node's zlib and, for small entries, fflate (`pack-inflate.ts`), keeping
 * delta bases (isomorphic-git inflates in JavaScript and keeps no delta base: ~1 ms per definition at 10,000 tools).
 * Kept per repository across snapshots: a pack's name is its content's hash, so what was read from it stays true;
 * `list` forgets packs git deleted. A pack's content and the delta bases are let go once no read came for `idleMs` (a
 * server holds neither between rescans; isomorphic-git kept every pack it read for good).
 */
export class PackStore {
  private packs: Pack[] = [];
  private readonly bases: BaseCache;
  private lastRead = 0;
  /** reads begun and not finished: the files are not let go under them */
  private reading = 0;
  /** a `release()` asked for while reads were in flight: done when the last of them ends */
  private releaseAsked = false;
  private idle: NodeJS.Timeout | undefined;
  private packKeys = 0;

  constructor(
    private readonly gitdir: string,
    baseCacheBytes = BASE_CACHE_BYTES,
    private readonly idleMs = IDLE_RELEASE_MS,
    private readonly maxObjectBytes = MAX_OBJECT_BYTES,
  ) {
    this.bases = new BaseCache(baseCacheBytes);
  }

  /**
   * How many bases are kept and their bytes (bounded by the limit given), the memory those bytes keep alive (the same,
   * unless a base shares its memory), how many packs are open and the bytes of their windows kept.
   */
  get held(): { bases: number; baseBytes: number; baseMemory: number; baseLimit: number; packs: number; windowBytes: number } {
    const open = this.packs.filter((pack) => pack.file);
    return { bases: this.bases.size, baseBytes: this.bases.bytes, baseMemory: this.bases.memory(), baseLimit: this.bases.limit, packs: open.length, windowBytes: open.reduce((bytes, pack) => bytes + pack.file!.heldBytes, 0) };
  }

  /** Lists the pack folder (again, after a fetch or a repack): new indexes are read, gone packs forgotten. */
  async list(): Promise<void> {
    const dir = join(this.gitdir, 'objects', 'pack');
    // git writes an index as `.tmp-…-pack-….idx` and renames it into place: read only `pack-*.idx`, as git's own
    // listing does, and an index that went between the listing and its read (a concurrent repack) as gone
    const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.startsWith('pack-') && name.endsWith('.idx'));
    const known = new Map(this.packs.map((pack) => [pack.name, pack]));
    const packs: Pack[] = [];
    for (const file of names) {
      const name = file.slice(0, -4);
      const pack = known.get(name) ?? (await readPackIndex(join(dir, file), name, String(this.packKeys++)).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error))));
      if (pack) packs.push(pack);
    }
    for (const [name, pack] of known) {
      if (packs.some((kept) => kept.name === name)) continue;
      this.bases.forgetPack(pack.key);
      pack.file?.retire();
      pack.file = undefined;
    }
    this.packs = packs;
  }

  /** The object's size from its pack entry's header (a delta's from the delta's own), without making it; `undefined` when no pack holds it or its header does not say. */
  async size(oid: string): Promise<number | undefined> {
    const found = this.locate(oid);
    return found && ((await this.whileReading(() => this.readAt(found.pack, found.offset, NOWHERE, SIZE_ONLY))) as number | undefined);
  }

  /**
   * The object, or `undefined` when no pack holds it. A `ref-delta`'s base may sit anywhere (a fetched pack is
   * thin): `readElsewhere` reads it by id. Its content is not checked against its id here (the caller does).
   */
  async read(oid: string, readElsewhere: (oid: string) => Promise<GitObject>): Promise<GitObject | undefined> {
    const found = this.locate(oid);
    return found && ((await this.whileReading(() => this.readAt(found.pack, found.offset, readElsewhere, Number.POSITIVE_INFINITY))) as GitObject);
  }

  /**
   * As `read`, but an object whose header (or its delta's) says it is over `most` bytes is not made: its size is the
   * answer (a huge blob is refused unread). One look-up and one inflate of a definition's delta where asking `size`
   * then `read` took two of each (issue #18).
   */
  async readUpTo(oid: string, most: number, readElsewhere: (oid: string) => Promise<GitObject>): Promise<GitObject | number | undefined> {
    const found = this.locate(oid);
    return found && this.whileReading(() => this.readAt(found.pack, found.offset, readElsewhere, most));
  }

  // A read in flight keeps the files: one that waited past `idleMs` for the disk or the CPU (a 4 MB tree read alone at
  // load ~20 took longer) found its file let go under it, and the scan failed with "pack … was let go"
  private async whileReading<T>(read: () => Promise<T>): Promise<T> {
    this.reading++;
    try {
      return await read();
    } finally {
      this.reading--;
      this.lastRead = Date.now();
      if (this.reading === 0 && this.releaseAsked) this.release();
    }
  }

  private locate(oid: string): { pack: Pack; offset: number } | undefined {
    // written into one buffer, not a new one each (three look-ups a definition)
    if (oid.length !== 40 || WANTED.write(oid, 0, 20, 'hex') !== 20) return undefined;
    for (const pack of this.packs) {
      const offset = indexOffset(pack.index, WANTED);
      if (offset !== undefined) return { pack, offset };
    }
    return undefined;
  }

  private file(pack: Pack): PackFile {
    this.lastRead = Date.now();
    this.idle ??= setTimeout(() => this.releaseWhenIdle(), this.idleMs).unref();
    return (pack.file ??= new PackFile(join(this.gitdir, 'objects', 'pack', `${pack.name}.pack`), pack.index));
  }

  // one timer per idle period, not one per read: it looks again when the last read is not old enough yet
  private releaseWhenIdle(): void {
    const waited = Date.now() - this.lastRead;
    if (this.reading > 0 || waited < this.idleMs) {
      this.idle = setTimeout(() => this.releaseWhenIdle(), this.reading > 0 ? this.idleMs : this.idleMs - waited).unref();
      return;
    }
    this.release();
  }

  /**
   * Lets go of the packs' files and the delta bases (a scan read what it needed), now or, with reads in flight, once
   * the last of them ends: let go under a read, its next window failed with "pack … was let go". A later read opens
   * them again.
   */
  release(): void {
    if (this.reading > 0) {
      this.releaseAsked = true;
      return;
    }
    this.releaseAsked = false;
    clearTimeout(this.idle);
    this.idle = undefined;
    this.bases.clear();
    for (const pack of this.packs) {
      pack.file?.retire();
      pack.file = undefined;
    }
  }

  // walks the chain down to a kept base or a whole object by the entries' headers, then applies the deltas back up,
  // keeping each base; each delta's bytes are read again at its turn (from a window still held, nearly always) rather
  // than held: a long chain held a window for each of its entries. The object's own size is known from its header (a
  // whole object's) or from its delta's first bytes: past `most`, that size is the answer (`SIZE_ONLY`: always;
  // `undefined` when the delta's head does not say).
  private async readAt(pack: Pack, offset: number, readElsewhere: (oid: string) => Promise<GitObject>, most: number): Promise<GitObject | number | undefined> {
    const file = this.file(pack);
    const deltas: Array<{ entry: PackEntry; offset: number }> = [];
    let base: GitObject | undefined;
    // the object's delta, when it was inflated whole to learn its size: applied last without inflating it again
    let top: Buffer | undefined;
    for (let at = offset; ; ) {
      const kept = deltas.length ? this.bases.get(pack.key, at) : undefined;
      if (kept) {
        base = kept;
        break;
      }
      // the header first: an object over the bound is refused before the rest of its bytes are read
      const entry = entryIn(file.entryNow(at, ENTRY_HEADER_BYTES) ?? (await file.entry(at, ENTRY_HEADER_BYTES)), at);
      if (at === offset && most < Number.POSITIVE_INFINITY) {
        const sized = entry.type === OFS_DELTA || entry.type === REF_DELTA ? await this.deltaTarget(file, entry, at) : { size: entry.size, delta: undefined };
        if (sized.size === undefined ? most === SIZE_ONLY : sized.size > most) return sized.size;
        top = sized.delta;
      }
      if (!(entry.size <= this.maxObjectBytes)) throw new Error(`pack ${pack.name}: an object of ${entry.size} bytes at ${at}, over the ${this.maxObjectBytes} bytes an object read may hold`);
      if (entry.type === OFS_DELTA) {
        deltas.push({ entry, offset: at });
        at = entry.baseOffset!;
        if (deltas.length > MAX_CHAIN) throw new Error(`corrupt pack ${pack.name}: a delta chain longer than ${MAX_CHAIN}`);
        continue;
      }
      if (entry.type === REF_DELTA) {
        deltas.push({ entry, offset: at });
        // a turn of the microtask queue first: a window held answers synchronously, so ref-deltas on each other (a
        // hostile pack's, up to MAX_CHAIN of them) would otherwise recurse on one stack until it overflowed
        await null;
        base = await readElsewhere(entry.baseOid!);
        break;
      }
      const type = TYPES[entry.type];
      if (!type) throw new Error(`corrupt pack ${pack.name}: unknown object type ${entry.type} at ${at}`);
      base = { type, content: inflateEntry(file.entryNow(at) ?? (await file.entry(at)), entry) };
      if (deltas.length) this.bases.set(pack.key, at, base);
      break;
    }
    for (let index = deltas.length - 1; index >= 0; index--) {
      const { entry, offset: at } = deltas[index]!;
      const delta = (index === 0 ? top : undefined) ?? inflateEntry(file.entryNow(at) ?? (await file.entry(at)), entry);
      base = { type: base.type, content: applyDelta(delta, base.content, this.maxObjectBytes) };
      if (index > 0) this.bases.set(pack.key, at, base);
    }
    return base;
  }

  // The size of a delta's result, from its head: a small delta inflated whole (making a zlib engine costs more than
  // inflating ~1 KB) and handed back for the read, a large one as far as its head only, and one that fails to inflate
  // likewise (its read says why).
  private async deltaTarget(file: PackFile, entry: PackEntry, at: number): Promise<{ size: number | undefined; delta: Buffer | undefined }> {
    let delta: Buffer | undefined;
    const bytes = file.entryNow(at) ?? (await file.entry(at, entry.size <= Math.min(SIZED_DELTA_BYTES, this.maxObjectBytes) ? Number.POSITIVE_INFINITY : entry.data + HEAD_BYTES));
    if (entry.size <= Math.min(SIZED_DELTA_BYTES, this.maxObjectBytes)) {
      try {
        delta = inflateEntry(bytes, entry);
      } catch {
        delta = undefined;
      }
    }
    const size = deltaResultSize(delta ?? partialInflate(bytes.subarray(entry.data, entry.data + HEAD_BYTES)));
    if (size !== undefined || delta !== undefined) return { size, delta };
    // a stream whose first bytes make too little (empty blocks: the object was built, up to 64 MiB, before the
    // definition's bound refused it; review Z17-8) is inflated on, a piece at a time, until its head says the size
    const head = await entryStreamHead((most) => file.entryNow(at, most) ?? file.entry(at, most), entry.data, DELTA_SIZES_BYTES);
    return { size: deltaResultSize(head), delta };
  }
}

/** The largest delta inflated whole to learn its result's size, and then applied (`deltaTarget`). */
export const SIZED_DELTA_BYTES = 64 * 1024;

/** `readAt`'s bound when only the size is asked. */
const SIZE_ONLY = -1;

// a `size` never reads a base
const NOWHERE = (oid: string): Promise<GitObject> => Promise.reject(new Error(`no read of ${oid} for a size`));

// the id looked up, as bytes (`locate`)
const WANTED = Buffer.alloc(20);

/** The longest delta chain read (ofs-deltas within a pack, ref-deltas across reads): git's `pack.depth` is at most 4095. */
export const MAX_CHAIN = 10_000;

async function readPackIndex(path: string, name: string, key: string): Promise<Pack | undefined> {
  const index = await readFile(path);
  // version 2: magic \377tOc, version 2, then the 256-entry fan-out table
  if (index.length < 8 + 1024 || index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2) return undefined;
  return { name, key, index, count: index.readUInt32BE(8 + 255 * 4), file: undefined };
}

/** The pack offset of an object id, by binary search of a version-2 index's sorted names within its fan-out bucket. */
export function indexOffset(index: Buffer, wanted: Buffer): number | undefined {
  const count = index.readUInt32BE(8 + 255 * 4);
  const first = wanted[0]!;
  let low = first === 0 ? 0 : index.readUInt32BE(8 + (first - 1) * 4);
  let high = index.readUInt32BE(8 + first * 4) - 1;
  const names = 8 + 1024;
  const head = wanted.readUInt32BE(0);
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = names + middle * 20;
    // the first four bytes compared as a number (a call into \`compare\` each step was ~5% of a cold scan's reading);
    // the rest only when those are equal
    let order = head - index.readUInt32BE(at);
    if (order === 0) order = wanted.compare(index, at, at + 20);
    if (order === 0) {
      const offsets = names + count * 20 + count * 4;
      const small = index.readUInt32BE(offsets + middle * 4);
      if ((small & 0x80000000) === 0) return small;
      // offsets past 2 GiB sit in a table of 8-byte values after the 4-byte ones
      return Number(index.readBigUInt64BE(offsets + count * 4 + (small & 0x7fffffff) * 8));
    }
    if (order > 0) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** How far a pack entry's size varint may shift (git's `unpack_object_header_buffer` refuses a shift past its 64-bit size). */
const MAX_SIZE_SHIFT = 60;

/** The header of the pack entry at `offset` (its type, size, where its data starts and its delta base); throws on a size that is no safe integer. */
export function entryAt(content: Buffer, offset: number): PackEntry {
  if (offset < 12 || offset >= content.length - 20) throw new Error(`corrupt pack: an object offset ${offset} outside the pack`);
  return entryHeader(content, offset, offset);
}

/** The longest entry header: a type and a size of up to 2^64 (10 bytes), and an ofs-delta's distance or a ref-delta's id. */
export const ENTRY_HEADER_BYTES = 32;

/** The header of the pack entry whose bytes (`PackFile.entry`) start `bytes`, at `offset` in its pack; `data` is a position in `bytes`. */
export function entryIn(bytes: Buffer, offset: number): PackEntry {
  const entry = entryHeader(bytes, 0, offset);
  if (entry.data > bytes.length) throw new Error(`corrupt pack: the object at ${offset} ends inside its header`);
  return entry;
}

// `content[start]` is the entry's first byte, at `offset` in its pack
function entryHeader(content: Buffer, start: number, offset: number): PackEntry {
  let position = start;
  let byte = content[position++]!;
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    // git stops at the width of its size (64 bits), and a size is a safe integer here: ~160 bytes of continuation read
    // as NaN, which passed every size check and zlib's output cap
    if (shift > MAX_SIZE_SHIFT) throw new Error(`corrupt pack: the size of the object at ${offset} runs past ${MAX_SIZE_SHIFT + 7} bits`);
    byte = content[position++]!;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (!Number.isSafeInteger(size)) throw new Error(`corrupt pack: the object at ${offset} states a size of ${size} bytes, past any a pack may hold`);
  if (type === REF_DELTA) return { type, size, data: position + 20, baseOid: content.toString('hex', position, position + 20) };
  if (type !== OFS_DELTA) return { type, size, data: position };
  // the base's distance back: a big-endian varint where each continuation adds one
  byte = content[position++]!;
  let distance = byte & 0x7f;
  while (byte & 0x80) {
    // it only grows: past the entry's own offset it points before the pack (and ~150 bytes of it read as Infinity)
    if (distance > offset) break;
    byte = content[position++]!;
    distance = (distance + 1) * 128 + (byte & 0x7f);
  }
  if (!(distance > 0 && distance <= offset)) throw new Error(`corrupt pack: a delta at ${offset} points before the pack`);
  return { type, size, data: position, baseOffset: offset - distance };
}

/** The start of a zlib stream, inflated as far as the bytes given reach (bounded by their count). */
export function partialInflate(compressed: Buffer): Buffer {
  try {
    return inflateSync(compressed, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}
