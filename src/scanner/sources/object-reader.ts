import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { objectId } from './pack-hashes.js';
import { entryStreamHead } from './stream-head.js';
import { MAX_CHAIN, MAX_OBJECT_BYTES, type GitObject, type ObjectType, type PackStore } from './pack-store.js';

// a loose object's header, `<type> <size>\0`: the longest type and a size of 20 digits fit
const HEADER_BYTES = 32;
// what a loose object may inflate to beyond its content: its header (as it was bounded)
const HEAD_BYTES = 512;
const OBJECT_TYPES = new Set<string>(['commit', 'tree', 'blob', 'tag']);

const inflateAsync = promisify(inflate);

/**
 * Reads git objects, loose or packed, by id, each checked against its id (as isomorphic-git checks them), and their
 * sizes from their headers without inflating them (so a huge blob is refused unread). `mayBeLoose` says whether a
 * loose object of that id can exist (its folder was listed): a clone's objects are all packed, and trying to open a
 * loose file first cost an `open` failing with ENOENT per object.
 */
export class ObjectReader {
  constructor(
    private readonly gitdir: string,
    private readonly packs: PackStore,
    private readonly mayBeLoose: (oid: string) => boolean = () => true,
    private readonly maxObjectBytes = MAX_OBJECT_BYTES,
    /** objects already read and checked (a fetch's, resolved as it indexed them) */
    private readonly known: ReadonlyMap<string, GitObject> = new Map(),
  ) {}

  /** The object's size from its header; `undefined` when neither a loose header nor a pack entry says (the caller reads it and checks after). */
  async size(oid: string): Promise<number | undefined> {
    const known = this.known.get(oid);
    if (known) return known.content.length;
    const loose = this.mayBeLoose(oid) ? await this.looseSize(oid) : undefined;
    return loose ?? this.packs.size(oid);
  }

  /** The object; throws "Could not find" when no loose file and no listed pack holds it (git may have repacked: list again and retry). */
  read(oid: string, expected?: ObjectType): Promise<GitObject> {
    const known = this.known.get(oid);
    if (known && (!expected || known.type === expected)) return Promise.resolve(known);
    return this.readAt(oid, expected, 0) as Promise<GitObject>;
  }

  /**
   * As `size`, then `read` when the size is at most `most`: the object, or its size when its header says it is over
   * `most` (it is then not made). A packed object is looked up and its delta inflated once.
   */
  async readUpTo(oid: string, expected: ObjectType, most: number): Promise<GitObject | number> {
    if (this.known.has(oid) || this.mayBeLoose(oid)) {
      const size = await this.size(oid);
      return size !== undefined && size > most ? size : this.read(oid, expected);
    }
    return this.readAt(oid, expected, 0, most);
  }

  // `hops`: how many ref-deltas led here. Their bases are named by id, so a hostile pack can make them each other's
  // (git's index-pack refuses that; a repository on disk is whatever wrote it): without a bound such a read never
  // ends, and every step of it is a microtask, so nothing else on the event loop runs either.
  private async readAt(oid: string, expected: ObjectType | undefined, hops: number, most = Number.POSITIVE_INFINITY): Promise<GitObject | number> {
    if (hops > MAX_CHAIN) throw new Error(`corrupt pack: a delta chain longer than ${MAX_CHAIN} (ref-deltas whose bases lead back to themselves?) reading ${oid}`);
    const readBase = (base: string): Promise<GitObject> => this.readAt(base, undefined, hops + 1) as Promise<GitObject>;
    const object = (this.mayBeLoose(oid) ? await this.readLoose(oid) : undefined) ?? (await this.packs.readUpTo(oid, most, readBase));
    if (object === undefined) throw new Error(`Could not find ${oid}`);
    if (typeof object === 'number') return object;
    // the only check of a small pack entry's bytes: fflate checks no Adler-32 (pack-inflate.ts)
    if (objectId(object.type, object.content) !== oid) throw new Error(`SHA check failed for object ${oid}`);
    if (expected && object.type !== expected) throw new Error(`object ${oid} is a ${object.type}, not a ${expected}`);
    return object;
  }

  // inflated by zlib in libuv's threads: a loose object is what a new commit writes, read in a rescan beside requests
  private async readLoose(oid: string): Promise<GitObject | undefined> {
    let compressed: Buffer;
    try {
      compressed = await readFile(this.loosePath(oid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // a loose object is bounded as a packed one is: a few kilobytes of zeros inflate to gigabytes
    const wrapped = await inflateAsync(compressed, { maxOutputLength: this.maxObjectBytes + HEAD_BYTES }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw error;
      throw new Error(`loose object ${oid} inflates to more than the ${this.maxObjectBytes} bytes an object read may hold`);
    });
    const nul = wrapped.indexOf(0);
    const match = nul > 0 ? /^([a-z]+) (\d+)$/.exec(wrapped.toString('latin1', 0, nul)) : null;
    if (!match || !OBJECT_TYPES.has(match[1]!) || Number(match[2]) !== wrapped.length - nul - 1) throw new Error(`malformed loose object ${oid}`);
    return { type: match[1] as ObjectType, content: wrapped.subarray(nul + 1) };
  }

  /**
   * The size a loose object's header states, from the start of its zlib stream however many empty blocks open it: a
   * fixed 512-byte head of such a stream made nothing, and the object was then read whole (up to 64 MiB) before the
   * definition's bound refused it, as packed deltas were (review Z17-8; fixm25's Left). Read in growing spans and
   * inflated only up to the header, as a pack entry's head is (stream-head.ts).
   */
  private async looseSize(oid: string): Promise<number | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.loosePath(oid), 'r');
    } catch {
      return undefined;
    }
    try {
      const { size } = await handle.stat();
      const read = async (most: number): Promise<Buffer> => {
        const buffer = Buffer.alloc(Math.min(most, size));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return buffer.subarray(0, bytesRead);
      };
      const head = await entryStreamHead(read, 0, HEADER_BYTES);
      const match = /^[a-z]+ (\d+)\0/.exec(head.toString('latin1'));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }

  private loosePath(oid: string): string {
    return join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }
}
