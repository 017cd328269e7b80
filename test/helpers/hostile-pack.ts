import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';

// Packs as a hostile server writes them (review G's craft.mjs, typed): raw entry headers, ofs-deltas, many tiny
// objects, a commit and its tree. `crafted-pack.ts` writes well-formed ones to disk; these are what goes on the wire.

export const PACK_TYPE = { commit: 1, tree: 2, blob: 3, tag: 4, ofs: 6, ref: 7 } as const;

/** A pack entry's type and size header: 3 bits of type and 4 of size, then 7 bits of size per byte. */
export function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** A little-endian base-128 number (a delta's sizes). */
export function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.push((rest & 0x7f) | (rest >= 128 ? 0x80 : 0));
    rest = Math.floor(rest / 128);
  } while (rest > 0);
  return Buffer.from(bytes);
}

/** git's ofs-delta distance: big-endian base-128 where each continuation adds one. */
export function ofsDistance(distance: number): Buffer {
  const bytes = [distance & 0x7f];
  let rest = distance >>> 7;
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest >>>= 7;
  }
  return Buffer.from(bytes);
}

/** A git delta: its base's size, its result's size, then its instructions. */
export function delta(baseSize: number, resultSize: number, instructions: Buffer): Buffer {
  return Buffer.concat([varint(baseSize), varint(resultSize), instructions]);
}

export function objectId(type: string, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/** A pack written entry by entry; each `add` returns the entry's offset. */
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

  whole(type: keyof typeof PACK_TYPE, content: Buffer, compressed = deflateSync(content)): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE[type], content.length), compressed]));
  }

  ofs(baseOffset: number, data: Buffer): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE.ofs, data.length), ofsDistance(this.offset - baseOffset), deflateSync(data)]));
  }

  ref(baseOid: string, data: Buffer): number {
    return this.raw(Buffer.concat([entryHeader(PACK_TYPE.ref, data.length), Buffer.from(baseOid, 'hex'), deflateSync(data)]));
  }

  finish(): Buffer {
    const header = Buffer.alloc(12);
    header.write('PACK', 0, 'latin1');
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(this.count, 8);
    const content = Buffer.concat([header, ...this.bodies]);
    return Buffer.concat([content, createHash('sha1').update(content).digest()]);
  }
}

/** A commit of an empty tree: with it in a pack, a clone of it succeeds (no tools). */
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
