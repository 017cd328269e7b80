import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { Entry } from './pack-entries.js';
import { crc32, objectId, sha1 } from './pack-hashes.js';
import { TYPES, type GitObject } from './pack-store.js';
import { Slices } from './slices.js';

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
