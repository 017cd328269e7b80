import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** One object of a crafted pack: a whole blob, or a `ref-delta` on the object `base` names (its `data` the delta itself). */
export type CraftedEntry = { oid: string; kind: 'blob'; data: Buffer } | { oid: string; kind: 'ref-delta'; base: string; data: Buffer };

/**
 * Writes `objects/pack/pack-<hash>.{pack,idx}` into `gitdir`: one version-2 pack holding `entries` as given, under
 * the ids given (which need not be their contents' hashes: a repository on disk is whatever its writer put there,
 * and git's index-pack, which would refuse most of what tests craft, never sees it).
 */
export async function writeCraftedPack(gitdir: string, entries: readonly CraftedEntry[]): Promise<void> {
  const { pack, offsets } = packOf(entries);
  const checksum = pack.subarray(pack.length - 20);
  const names = [...offsets.keys()].sort();
  const fanout = Buffer.alloc(1024);
  for (let byte = 0; byte < 256; byte++) fanout.writeUInt32BE(names.filter((name) => parseInt(name.slice(0, 2), 16) <= byte).length, byte * 4);
  const crcs = Buffer.alloc(4 * names.length);
  const packOffsets = Buffer.alloc(4 * names.length);
  names.forEach((name, position) => packOffsets.writeUInt32BE(offsets.get(name)!, position * 4));
  const indexBody = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout, ...names.map((name) => Buffer.from(name, 'hex')), crcs, packOffsets, checksum]);
  const index = Buffer.concat([indexBody, createHash('sha1').update(indexBody).digest()]);
  const folder = join(gitdir, 'objects', 'pack');
  await mkdir(folder, { recursive: true });
  const name = `pack-${checksum.toString('hex')}`;
  await writeFile(join(folder, `${name}.pack`), pack);
  await writeFile(join(folder, `${name}.idx`), index);
}

/** The bytes of a version-2 pack holding `entries` as given (what a server sends), and where each entry starts. */
export function packOf(entries: readonly CraftedEntry[]): { pack: Buffer; offsets: Map<string, number> } {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const offsets = new Map<string, number>();
  const bodies: Buffer[] = [];
  let offset = header.length;
  for (const entry of entries) {
    const typed = entry.kind === 'blob' ? entryHeader(3, entry.data.length) : Buffer.concat([entryHeader(7, entry.data.length), Buffer.from(entry.base, 'hex')]);
    const body = Buffer.concat([typed, deflateSync(entry.data)]);
    offsets.set(entry.oid, offset);
    offset += body.length;
    bodies.push(body);
  }
  const content = Buffer.concat([header, ...bodies]);
  return { pack: Buffer.concat([content, createHash('sha1').update(content).digest()]), offsets };
}

/**
 * A pack whose objects are all `ref-delta`s, each on the base `bases` names (another object of the same pack, or
 * itself): no git writes one (index-pack refuses a delta cycle). Each delta copies the 5 bytes of a 5-byte base.
 */
export function writeRefDeltaPack(gitdir: string, bases: Record<string, string>): Promise<void> {
  const delta = Buffer.from([5, 5, 0x90, 5]);
  return writeCraftedPack(gitdir, Object.entries(bases).map(([oid, base]) => ({ oid, kind: 'ref-delta' as const, base, data: delta })));
}

/** A git delta: its base's size, its result's size, then its instructions as given. */
export function craftDelta(baseSize: number, resultSize: number, instructions: Buffer): Buffer {
  return Buffer.concat([varint(baseSize), varint(resultSize), instructions]);
}

/** The id git gives a blob of `content`. */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

// a pack entry's type and size: 3 bits of type and 4 of size, then 7 bits of size per byte
function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.push((rest & 0x7f) | (rest >= 128 ? 0x80 : 0));
    rest = Math.floor(rest / 128);
  } while (rest > 0);
  return Buffer.from(bytes);
}
