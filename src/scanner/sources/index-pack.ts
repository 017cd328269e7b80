import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { letGo, SLICE_MS } from '../../core/index.js';
import { applyDelta } from './git-delta.js';
import { Entry, Held, HOLD_BYTES, inflateAt } from './pack-entries.js';
import { entryAt, MAX_CHAIN, MAX_OBJECT_BYTES, OFS_DELTA, ownMemory, REF_DELTA, TYPES, type GitObject, type ObjectType } from './pack-store.js';
import { ThinPackRefusal } from './thin-pack-refusal.js';

/** A pack made whole (`git index-pack --fix-thin`) and its version-2 index, named as git names them: `pack-<name>.pack`. */
export interface IndexedPack {
  name: string;
  pack: Buffer;
  index: Buffer;
  /** objects in the pack, the bases appended to fix a thin pack included */
  objects: number;
  /** bases that came from outside the pack (a thin pack's), appended whole */
  appended: number;
  /** the received objects by id, resolved and checked (what a read right after the fetch would otherwise resolve again), up to `KEEP_BYTES` of them */
  received: Map<string, GitObject>;
}

/**
 * How much of a fetch's resolved objects `IndexedPack.received` keeps (a one-file commit's are ~0.4 MB at 10,000
 * tools), each counted with `KEPT_OVERHEAD_BYTES` beside its content.
 */
export const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * What keeping one object costs beside its content (its object, its Buffer, its id and its map slot, measured ~250
 * bytes): counted against `KEEP_BYTES`, which counted content alone and so kept 110,790 objects of a 100,000-tool
 * clone (~30 MB of heap and their buffers held through the whole scan, for 16 MB counted).
 */
export const KEPT_OVERHEAD_BYTES = 256;

/**
 * Indexes a received pack as `git index-pack --fix-thin` does: every entry inflated (Node's zlib, which says where
 * each stream ends), its deltas resolved from their bases (in the pack, or for a thin pack's `ref-delta`s read by
 * `readOutside`, then appended whole so the pack stands alone, as git requires), each object's id computed, and the
 * index written. Throws on anything that does not add up: a checksum, a size, a base that is nowhere, a chain too long,
 * or an object past `maxObjectBytes` (checked before it is inflated or made: a server's few kilobytes of delta can state
 * gigabytes). Holds at most `holdBytes` of inflated bytes besides the pack (see `HOLD_BYTES`).
 */
export async function indexPack(received: Buffer, readOutside: (oid: string) => Promise<GitObject>, maxObjectBytes = MAX_OBJECT_BYTES, holdBytes = HOLD_BYTES, keepBytes = KEEP_BYTES): Promise<IndexedPack> {
  if (received.length < 32 || received.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a git pack (no PACK signature)');
  const version = received.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`git pack version ${version} is not supported`);
  const trailer = received.length - 20;
  if (!sha1(received.subarray(0, trailer)).equals(received.subarray(trailer))) throw new Error('corrupt pack: its checksum does not match (truncated in transfer?)');
  const count = received.readUInt32BE(8);
  if (count > MAX_PACK_OBJECTS) throw new Error(`fetched pack: ${count} objects, over the ${MAX_PACK_OBJECTS} a pack may bring here`);
  const held = new Held(received, trailer, maxObjectBytes, holdBytes);
  const slices = new Slices();
  const entries: Entry[] = [];
  let offset = 12;
  for (let index = 0; index < count; index++) {
    if (slices.due()) await slices.letGo();
    const header = entryAt(received, offset);
    const type = TYPES[header.type];
    if (!(header.size <= MAX_STREAMED_BYTES)) throw new Error(`fetched pack: an object of ${header.size} bytes at ${offset}, over the ${MAX_STREAMED_BYTES} bytes a repository's file may have here`);
    if (header.size > maxObjectBytes && type !== undefined) {
      // a whole object over what a read may hold (a large file beside `tools/`; git stores files over its 512 MiB
      // bigFileThreshold whole) is hashed as it streams out of zlib and never held: it can be no delta's base here
      held.made(header.size + ENTRY_OVERHEAD_BYTES);
      const { oid, consumed } = await hashStreamed(received.subarray(header.data, trailer), type, header.size, offset);
      const end = header.data + consumed;
      const entry = Entry.whole(offset, end, crc32(received.subarray(offset, end)), type, header.data, header.size, oid);
      entry.streamed = true;
      entries.push(entry);
      offset = end;
      continue;
    }
    if (!(header.size <= maxObjectBytes)) throw new Error(`fetched pack: a delta of ${header.size} bytes at ${offset}, over the ${maxObjectBytes} bytes an object read may hold`);
    held.made(header.size + ENTRY_OVERHEAD_BYTES);
    const { data, consumed } = inflateAt(received, header.data, trailer, header.size, offset);
    const end = header.data + consumed;
    const entry = new Entry(offset, end, crc32(received.subarray(offset, end)), header.type, header.data, header.size, header.baseOffset, header.baseOid);
    if (type !== undefined) {
      // a whole object's id now, while its content is at hand: it need not be held unless something is a delta on it
      entry.type = type;
      entry.oid = objectId(type, data);
    }
    held.keep(entry, data);
    entries.push(entry);
    offset = end;
  }
  if (offset !== trailer) throw new Error(`corrupt pack: ${trailer - offset} bytes after its ${count} objects`);
  const { outside, kept } = await resolveAll(entries, readOutside, held, slices, keepBytes);
  return writeIndex(received, entries, outside, kept, slices);
}

/**
 * Resolves every entry from its base, bases first (a worklist from the whole objects, so a chain in any order is
 * linear), and keeps up to `keepBytes` of the resolved objects to hand on.
 */
async function resolveAll(entries: Entry[], readOutside: (oid: string) => Promise<GitObject>, held: Held, slices: Slices, keepBytes: number): Promise<{ outside: GitObject[]; kept: Map<string, GitObject> }> {
  // in turns, as the rest: 2 million tiny objects held the event loop here and in `writeIndex` for 48 s
  const offsets = new Set<number>();
  for (const entry of entries) {
    if (slices.due()) await slices.letGo();
    offsets.add(entry.offset);
  }
  const waitingOnOffset = new Map<number, Entry[]>();
  const waitingOnOid = new Map<string, Entry[]>();
  const ready: Entry[] = [];
  for (const entry of entries) {
    if (slices.due()) await slices.letGo();
    if (entry.kind === OFS_DELTA) {
      if (!offsets.has(entry.baseOffset!)) throw new Error(`corrupt pack: a delta at ${entry.offset} names no entry at ${entry.baseOffset} as its base`);
      push(waitingOnOffset, entry.baseOffset!, entry);
    } else if (entry.kind === REF_DELTA) {
      push(waitingOnOid, entry.baseOid!, entry);
    } else {
      if (!TYPES[entry.kind]) throw new Error(`corrupt pack: unknown object type ${entry.kind} at ${entry.offset}`);
      ready.push(entry);
    }
  }
  const kept = new Map<string, GitObject>();
  let keptBytes = 0;
  const keep = (entry: Entry, size: number, content: () => Buffer): void => {
    if (keptBytes + size + KEPT_OVERHEAD_BYTES > keepBytes || kept.has(entry.oid!)) return;
    keptBytes += size + KEPT_OVERHEAD_BYTES;
    kept.set(entry.oid!, { type: entry.type!, content: ownMemory(content()) });
  };
  // whole objects first, in pack order (as `received` kept them before: the fetch's new trees and blobs)
  for (const entry of ready) if (!entry.streamed) keep(entry, entry.size, () => held.dataOf(entry));
  const resolveFrom = async (list: Entry[]): Promise<void> => {
    while (list.length > 0) {
      if (slices.due()) await slices.letGo();
      const entry = list.pop()!;
      let content: Buffer | undefined;
      const base = entry.base;
      if (base !== undefined && entry.oid === undefined) {
        // made when it is its turn, not when its base was: a base with a thousand deltas held them all at once
        content = applyDelta(held.dataOf(entry), held.contentOf(base), held.maxObjectBytes);
        held.made(content.length);
        held.drop(entry);
        entry.type = base.type;
        entry.oid = objectId(base.type!, content);
        entry.depth = base.depth + 1;
        if (--base.pending === 0) held.release(base);
        const made = content;
        keep(entry, made.length, () => made);
      }
      const children = take(waitingOnOffset, entry.offset, take(waitingOnOid, entry.oid!, NONE));
      if (children.length === 0) {
        if (base === undefined) held.drop(entry);
        continue;
      }
      if (entry.streamed) throw new Error(`fetched pack: a delta at ${children[0]!.offset} on an object over the ${held.maxObjectBytes} bytes a read may hold`);
      if (entry.depth! >= MAX_CHAIN) throw new Error(`corrupt pack: a delta chain longer than ${MAX_CHAIN}`);
      entry.pending = children.length;
      content ??= held.contentOf(entry);
      // a whole object's data becomes the content its deltas are made from
      if (base === undefined) held.drop(entry);
      held.hold(entry, content);
      for (const child of children) {
        child.base = entry;
        list.push(child);
      }
    }
  };
  await resolveFrom(ready);
  // what is left waits on objects outside the pack (a thin pack), or on nothing at all
  const outside: GitObject[] = [];
  let appendedBytes = 0;
  for (const oid of [...waitingOnOid.keys()]) {
    // a ref-delta base inside the pack, resolved meanwhile through an outside one, has had its deltas resolved
    if (!waitingOnOid.has(oid)) continue;
    const object = await readOutside(oid);
    // held to the end and appended whole: counted (16 ref-deltas of 0.7 KB on held 60 MiB blobs held 3 GB and wrote 960 MB a fetch)
    appendedBytes += object.content.length;
    if (!(appendedBytes <= MAX_APPENDED_BYTES)) throw new ThinPackRefusal(`fetched pack: its deltas are on ${appendedBytes} bytes of objects from outside it, over the ${MAX_APPENDED_BYTES} a fetch may append here`);
    held.made(object.content.length + ENTRY_OVERHEAD_BYTES);
    outside.push(object);
    const base = Entry.whole(-1, -1, 0, object.type, -1, object.content.length, oid);
    base.outside = object.content;
    await resolveFrom([base]);
  }
  const unresolved = entries.find((entry) => entry.oid === undefined);
  if (unresolved) throw new Error(`corrupt pack: the delta at ${unresolved.offset} has no base (its chain leads back to itself)`);
  return { outside, kept };
}

/** The fixed pack (the outside bases appended, its count and checksum updated) and its version-2 index. */
export async function writeIndex(received: Buffer, entries: Entry[], outside: GitObject[], kept: Map<string, GitObject>, slices = new Slices()): Promise<IndexedPack> {
  const trailer = received.length - 20;
  const appended: Buffer[] = [];
  let offset = trailer;
  for (const base of outside) {
    // stored, not compressed: this copies an object we hold already (a one-file commit's base is the whole old `tools/`
    // tree: 0.4 MB at 10,000 tools, whose ids do not compress much), and compressing it cost more than the rest of the fetch
    const compressed = zlib.deflateSync(base.content, { level: zlib.constants.Z_NO_COMPRESSION, chunkSize: Math.max(base.content.length + 1024, zlib.constants.Z_MIN_CHUNK) });
    const bytes = Buffer.concat([entryHeader(TYPES.indexOf(base.type), base.content.length), compressed]);
    entries.push(Entry.whole(offset, offset + bytes.length, crc32(bytes), base.type, -1, base.content.length, objectId(base.type, base.content)));
    appended.push(bytes);
    offset += bytes.length;
  }
  // a pack that stands alone is written as it came; one with bases appended is made in one copy (it was two, on
  // top of the received pack: a 1 GiB pack was held three times)
  let pack = received;
  let checksum = received.subarray(trailer);
  if (outside.length > 0) {
    const head = Buffer.from(received.subarray(0, 12));
    head.writeUInt32BE(entries.length, 8);
    const hash = createHash('sha1').update(head).update(received.subarray(12, trailer));
    for (const bytes of appended) hash.update(bytes);
    checksum = hash.digest();
    pack = Buffer.concat([head, received.subarray(12, trailer), ...appended, checksum]);
  }
  // one entry per id (a pack may hold an object twice: the first is kept, as git keeps it)
  const unique = new Map<string, Entry>();
  for (const entry of entries) {
    if (slices.due()) await slices.letGo();
    if (!unique.has(entry.oid!)) unique.set(entry.oid!, entry);
  }
  const sorted = await sortedById([...unique.values()], slices);
  const large = sorted.filter((entry) => entry.offset >= 0x80000000);
  const index = Buffer.alloc(8 + 1024 + sorted.length * 28 + large.length * 8 + 40);
  index.writeUInt32BE(0xff744f63, 0);
  index.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (let position = 0; position < sorted.length; position++) {
    if (slices.due()) await slices.letGo();
    fanout[Number.parseInt(sorted[position]!.oid!.slice(0, 2), 16)]! += 1;
  }
  for (let byte = 0, total = 0; byte < 256; byte++) index.writeUInt32BE((total += fanout[byte]!), 8 + byte * 4);
  const names = 8 + 1024;
  const crcs = names + sorted.length * 20;
  const offsets = crcs + sorted.length * 4;
  let nextLarge = 0;
  for (let position = 0; position < sorted.length; position++) {
    if (slices.due()) await slices.letGo();
    const entry = sorted[position]!;
    index.write(entry.oid!, names + position * 20, 'hex');
    index.writeUInt32BE(entry.crc, crcs + position * 4);
    if (entry.offset < 0x80000000) {
      index.writeUInt32BE(entry.offset, offsets + position * 4);
    } else {
      index.writeUInt32BE((0x80000000 | nextLarge) >>> 0, offsets + position * 4);
      index.writeBigUInt64BE(BigInt(entry.offset), offsets + sorted.length * 4 + nextLarge * 8);
      nextLarge++;
    }
  }
  checksum.copy(index, index.length - 40);
  sha1(index.subarray(0, index.length - 20)).copy(index, index.length - 20);
  return { name: `pack-${checksum.toString('hex')}`, pack, index, objects: entries.length, appended: outside.length, received: kept };
}

/**
 * `entries` sorted by id in turns on the event loop: runs of `SORT_RUN` sorted, then merged a pass at a time (one
 * `sort` of a million ids was seconds without a turn; a server can grind ids that share a prefix, so no bucketing).
 */
async function sortedById(entries: Entry[], slices: Slices): Promise<Entry[]> {
  const byId = (a: Entry, b: Entry): number => (a.oid! < b.oid! ? -1 : a.oid! > b.oid! ? 1 : 0);
  let from = entries;
  for (let start = 0; start < from.length; start += SORT_RUN) {
    if (slices.due()) await slices.letGo();
    const run = from.slice(start, start + SORT_RUN).sort(byId);
    for (let at = 0; at < run.length; at++) from[start + at] = run[at]!;
  }
  let to = new Array<Entry>(from.length);
  for (let width = SORT_RUN; width < from.length; width *= 2) {
    for (let low = 0; low < from.length; low += 2 * width) {
      const middle = Math.min(low + width, from.length);
      const high = Math.min(low + 2 * width, from.length);
      let left = low;
      let right = middle;
      for (let at = low; at < high; at++) {
        if ((at & 0xfff) === 0 && slices.due()) await slices.letGo();
        to[at] = right >= high || (left < middle && byId(from[left]!, from[right]!) <= 0) ? from[left++]! : from[right++]!;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

const SORT_RUN = 4096;

/** Writes the pack, then its index (readers list packs by their index: a pack is seen only once whole). */
export async function writeIndexedPack(gitdir: string, indexed: IndexedPack): Promise<void> {
  const base = join(gitdir, 'objects', 'pack', indexed.name);
  for (const [extension, bytes] of [['.pack', indexed.pack], ['.idx', indexed.index]] as const) {
    const temporary = `${base}${extension}.${process.pid}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, `${base}${extension}`);
  }
}

function entryHeader(type: number, size: number): Buffer {
  const bytes = [((type & 7) << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/**
 * The most objects a pack may bring (a 100,000-tool clone's holds ~200,000): indexing keeps ~570 bytes of heap an
 * object whatever its size, and 9 million empty blobs (158 KB of gzip on the wire) aborted the process out of heap.
 * Past it the pack is refused from its header, before an entry is read.
 */
export const MAX_PACK_OBJECTS = 1_000_000;

/** What each entry counts against the make limit beside its inflated size: what holding it costs, so a pack of empty objects is bounded by its budget too. */
export const ENTRY_OVERHEAD_BYTES = 512;

/**
 * What a thin pack's bases from outside it may come to in all (held until the pack is written, then appended to it
 * uncompressed): an honest fetch's are the old versions of what it changed (~4 MB at 100,000 tools), or one large
 * file's; past it the fetch is refused (`ThinPackRefusal`: the remote source then clones afresh, whose pack needs none).
 */
export const MAX_APPENDED_BYTES = 2 * MAX_OBJECT_BYTES;

/** The largest whole object a pack may bring (hashed as it streams, never held): past it, the clone or fetch is refused. */
export const MAX_STREAMED_BYTES = 2 * 1024 * 1024 * 1024;

/** A whole object's id, its content inflated a chunk at a time and hashed as it comes; and how many pack bytes its zlib stream took. */
async function hashStreamed(stream: Buffer, type: ObjectType, size: number, offset: number): Promise<{ oid: string; consumed: number }> {
  const hash = createHash('sha1').update(`${type} ${size}\0`, 'latin1');
  const inflate = zlib.createInflate({ chunkSize: 64 * 1024 });
  let inflated = 0;
  inflate.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    // more than its header says: stop now, not after gigabytes
    if (inflated > size) inflate.destroy(new Error(`corrupt pack: an object at ${offset} inflates past the ${size} bytes its header says`));
    else hash.update(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    inflate.once('end', resolve);
    inflate.once('error', reject);
    inflate.end(stream);
  });
  if (inflated !== size) throw new Error(`corrupt pack: an object at ${offset} inflated to ${inflated} bytes where its header says ${size}`);
  return { oid: hash.digest('hex'), consumed: inflate.bytesWritten };
}

function objectId(type: ObjectType, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`, 'latin1').update(content).digest('hex');
}

function sha1(bytes: Buffer): Buffer {
  return createHash('sha1').update(bytes).digest();
}

function push<K>(map: Map<K, Entry[]>, key: K, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

/** The entries waiting on `key`, after `also` (none: `NONE`, shared and never written). */
function take<K>(map: Map<K, Entry[]>, key: K, also: Entry[]): Entry[] {
  const list = map.get(key);
  if (list === undefined) return also;
  map.delete(key);
  // one at a time: a spread of 200,000 waiting ref-deltas overflows the stack
  for (const entry of also) list.push(entry);
  return list;
}

const NONE: Entry[] = [];

/**
 * The indexer's turns on the event loop: indexing a 100,000-tool clone's pack is ~5 s of CPU, and a server's every
 * 64th fetch starts a clone over, so it lets requests and timers (the clone lock's refresh among them) run every `SLICE_MS`.
 */
class Slices {
  private start = performance.now();

  due(): boolean {
    return performance.now() - this.start >= SLICE_MS;
  }

  async letGo(): Promise<void> {
    await letGo();
    this.start = performance.now();
  }
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value;
});

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** CRC-32 as zlib computes it: Node's own where it has one (`zlib.crc32` is 20.15 and later; `engines` allows 20.10). */
export const crc32: (bytes: Uint8Array) => number = nativeCrc32 ?? portableCrc32;

/** CRC-32 (the polynomial zlib and git use) by table, for a Node without `zlib.crc32`. */
export function portableCrc32(bytes: Uint8Array): number {
  let value = -1;
  for (let position = 0; position < bytes.length; position++) value = CRC_TABLE[(value ^ bytes[position]!) & 0xff]! ^ (value >>> 8);
  return (value ^ -1) >>> 0;
}
