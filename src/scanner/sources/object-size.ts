import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

// enough compressed bytes to hold an object header or a delta's two size numbers, and no more
const HEAD_BYTES = 512;
const OFS_DELTA = 6;
const REF_DELTA = 7;

/** One pack: its index file, and its pack file kept open while lookups come. */
interface PackIndex {
  pack: PackFile;
  /** the `.idx` file (version 2) */
  index: Buffer;
  count: number;
}

/**
 * Sizes of git objects read from their headers, without inflating their content: a loose object's
 * `blob <size>` header, or a pack entry's size (for a delta, the result size at the start of the delta).
 * `undefined` when the object is neither loose nor in a version-2 pack index this reader knows: the
 * caller then reads the object and checks its size afterwards.
 */
export class ObjectSizes {
  private packs: Promise<PackIndex[]> | undefined;

  /**
   * `mayBeLoose` says whether a loose object of that id can exist (its folder was listed): a clone's objects are all
   * packed, and trying to open a loose file first cost an `open` failing with ENOENT per object.
   */
  constructor(
    private readonly gitdir: string,
    private readonly mayBeLoose: (oid: string) => boolean = () => true,
  ) {}

  async size(oid: string): Promise<number | undefined> {
    const loose = this.mayBeLoose(oid) ? await this.looseSize(oid) : undefined;
    if (loose !== undefined) return loose;
    for (const pack of await this.loadPacks()) {
      const offset = findOffset(pack, oid);
      // a pack that git deleted since it was listed (a repack replaced it): the size is learnt by reading instead
      if (offset !== undefined) return packedSize(pack.pack, offset).catch(() => undefined);
    }
    return undefined;
  }

  /** Lists the packs again on the next lookup (after git repacked the store). */
  forget(): void {
    const packs = this.packs;
    this.packs = undefined;
    void packs?.then((list) => list.forEach((pack) => pack.pack.close()), () => undefined);
  }

  private async looseSize(oid: string): Promise<number | undefined> {
    let head: Buffer;
    try {
      head = await readAt(join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), 0, HEAD_BYTES);
    } catch {
      return undefined;
    }
    const text = partialInflate(head);
    const match = /^[a-z]+ (\d+)\0/.exec(text.subarray(0, 64).toString('latin1'));
    return match ? Number(match[1]) : undefined;
  }

  // read once per snapshot: a fetch writes new packs, and a new snapshot gets a new reader
  private loadPacks(): Promise<PackIndex[]> {
    this.packs ??= (async () => {
      const dir = join(this.gitdir, 'objects', 'pack');
      const names = await readdir(dir).catch(() => [] as string[]);
      const indexes: PackIndex[] = [];
      for (const name of names.filter((file) => file.endsWith('.idx'))) {
        const index = await readFile(join(dir, name));
        // version 2: magic \377tOc, version 2, then the 256-entry fan-out table
        if (index.length < 8 + 1024 || index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2) continue;
        indexes.push({ pack: new PackFile(join(dir, `${name.slice(0, -4)}.pack`)), index, count: index.readUInt32BE(8 + 255 * 4) });
      }
      return indexes;
    })();
    return this.packs;
  }
}

/** The pack offset of `oid`, by binary search of the index's sorted names within its fan-out bucket. */
function findOffset({ index, count }: PackIndex, oid: string): number | undefined {
  const wanted = Buffer.from(oid, 'hex');
  if (wanted.length !== 20) return undefined;
  const first = wanted[0]!;
  let low = first === 0 ? 0 : index.readUInt32BE(8 + (first - 1) * 4);
  let high = index.readUInt32BE(8 + first * 4) - 1;
  const names = 8 + 1024;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = wanted.compare(index, names + middle * 20, names + middle * 20 + 20);
    if (order === 0) {
      const offsets = names + count * 20 + count * 4;
      const small = index.readUInt32BE(offsets + middle * 4);
      if ((small & 0x80000000) === 0) return small;
      // offsets past 2 GiB sit in a table of 8-byte values after the 4-byte ones
      const large = offsets + count * 4 + (small & 0x7fffffff) * 8;
      return Number(index.readBigUInt64BE(large));
    }
    if (order > 0) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** A pack entry's size: from its header, or for a delta from the delta's own header (the size it produces). */
async function packedSize(pack: PackFile, offset: number): Promise<number | undefined> {
  const head = await pack.read(offset, 64 + HEAD_BYTES);
  let position = 0;
  let byte = head[position++]!;
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = head[position++]!;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (type !== OFS_DELTA && type !== REF_DELTA) return size;
  if (type === REF_DELTA) position += 20;
  else {
    do byte = head[position++]!;
    while (byte & 0x80);
  }
  const delta = partialInflate(head.subarray(position));
  const base = readVarint(delta, 0);
  if (base === undefined) return undefined;
  return readVarint(delta, base.next)?.value;
}

function readVarint(bytes: Buffer, start: number): { value: number; next: number } | undefined {
  let value = 0;
  let shift = 0;
  for (let position = start; position < bytes.length; position++) {
    const byte = bytes[position]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: position + 1 };
  }
  return undefined;
}

// the start of a zlib stream, inflated as far as the bytes given reach (bounded by their count)
function partialInflate(compressed: Buffer): Buffer {
  try {
    return inflateSync(compressed, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}

async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

// how long a pack file stays open after its last lookup: a scan looks up thousands in a row
const PACK_IDLE_MS = 100;

/**
 * A pack file opened once for a run of lookups, not once per lookup (an open and a close per object were a tenth of a
 * cold scan's CPU at 10,000 tools), and closed when none came for a moment. A pack git deleted meanwhile still reads
 * through the open handle; one that cannot be opened fails that lookup, and the next one opens it again.
 */
class PackFile {
  private handle: Promise<FileHandle> | undefined;
  private reading = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(readonly path: string) {}

  async read(position: number, length: number): Promise<Buffer> {
    clearTimeout(this.idle);
    this.reading++;
    try {
      if (!this.handle) {
        const opening = open(this.path, 'r');
        this.handle = opening;
        opening.catch(() => {
          if (this.handle === opening) this.handle = undefined;
        });
      }
      const handle = await this.handle;
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    } finally {
      this.reading--;
      if (this.reading === 0) this.idle = setTimeout(() => this.reading === 0 && this.close(), PACK_IDLE_MS).unref();
    }
  }

  close(): void {
    clearTimeout(this.idle);
    const handle = this.handle;
    this.handle = undefined;
    void handle?.then((open) => open.close(), () => undefined).catch(() => undefined);
  }
}
