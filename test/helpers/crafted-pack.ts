import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';

// Packs as a writer of our own makes them, for what git would never write or index-pack would refuse: on disk
// (`writeCraftedPack`, with its index) or on the wire (`packOf`, `PackWriter`: raw entry headers, ofs-deltas, many
// tiny objects, a commit and its tree, as a hostile server sends them — review G's craft.mjs, typed).

// a pack entry's type number, by name (`ofs` and `ref`: the two kinds of delta)
const PACK_TYPE = { commit: 1, tree: 2, blob: 3, tag: 4, ofs: 6, ref: 7 } as const;

/** One object of a crafted pack: a whole blob, or a `ref-delta` on the object `base` names (its `data` the delta itself); either's zlib stream `compressed`, when given, in place of `data`'s. */
export type CraftedEntry = { oid: string; kind: 'blob'; data: Buffer; compressed?: Buffer } | { oid: string; kind: 'ref-delta'; base: string; data: Buffer; compressed?: Buffer };

/** A pack written entry by entry; each entry's method returns the offset it starts at. */
export class PackWriter {
  private readonly bodies: Buffer[] = [];
  private offset = 12;
  count = 0;

  /** Raw bytes as one entry (a header of one's own making and its zlib stream). */
  raw(bytes: Buffer): number {
    const at = this.offset;
    this.bodies.push(bytes);
    this.offset += bytes.length;
    this.count++;
    return at;
  }

  whole(type: keyof typeof PACK_TYPE, content: Buffer, compressed: Buffer = deflateSync(content)): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE[type], content.length), compressed]));
  }

  ofs(baseOffset: number, data: Buffer): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE.ofs, data.length), ofsDistance(this.offset - baseOffset), deflateSync(data)]));
  }

  ref(baseOid: string, data: Buffer, compressed: Buffer = deflateSync(data)): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE.ref, data.length), Buffer.from(baseOid, 'hex'), compressed]));
  }

  /** The version-2 pack: its header, the entries as added, and its checksum. */
  finish(): Buffer {
    const header = Buffer.alloc(12);
    header.write('PACK', 0, 'latin1');
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(this.count, 8);
    const content = Buffer.concat([header, ...this.bodies]);
    return Buffer.concat([content, createHash('sha1').update(content).digest()]);
  }
}

/** The bytes of a version-2 pack holding `entries` as given (what a server sends), and where each entry starts. */
export function packOf(entries: readonly CraftedEntry[]): { pack: Buffer; offsets: Map<string, number> } {
  const writer = new PackWriter();
  const offsets = new Map<string, number>();
  for (const entry of entries) offsets.set(entry.oid, entry.kind === 'blob' ? writer.whole('blob', entry.data, entry.compressed) : writer.ref(entry.base, entry.data, entry.compressed));
  return { pack: writer.finish(), offsets };
}

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

/** The id git gives an object of that type and content. */
export function objectId(type: 'commit' | 'tree' | 'blob' | 'tag', content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/** The id git gives a blob of `content`. */
export function blobId(content: Buffer): string {
  return objectId('blob', content);
}

/** A commit of an empty tree, both added to `pack`: with it in a pack, a clone of it succeeds (no tools). */
export function emptyCommit(pack: PackWriter): string {
  const tree = Buffer.alloc(0);
  pack.whole('tree', tree);
  const commit = Buffer.from(`tree ${objectId('tree', tree)}\nauthor R <r@e> 1700000000 +0000\ncommitter R <r@e> 1700000000 +0000\n\nhostile\n`);
  pack.whole('commit', commit);
  return objectId('commit', commit);
}

/** The ref advertisement of one branch `main` at `commit`. */
export function advertisement(commit: string): Buffer {
  return Buffer.concat([
    packetLine('# service=git-upload-pack\n'),
    FLUSH,
    packetLine(`${commit} HEAD\0side-band-64k ofs-delta thin-pack shallow no-progress symref=HEAD:refs/heads/main agent=git/2\n`),
    packetLine(`${commit} refs/heads/main\n`),
    FLUSH,
  ]);
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

// a little-endian base-128 number (a delta's sizes)
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.push((rest & 0x7f) | (rest >= 128 ? 0x80 : 0));
    rest = Math.floor(rest / 128);
  } while (rest > 0);
  return Buffer.from(bytes);
}

// git's ofs-delta distance: big-endian base-128 where each continuation adds one
function ofsDistance(distance: number): Buffer {
  const bytes = [distance & 0x7f];
  let rest = distance >>> 7;
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest >>>= 7;
  }
  return Buffer.from(bytes);
}
