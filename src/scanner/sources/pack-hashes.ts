import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type { ObjectType } from './pack-store.js';

// The hashes a pack and its index carry: each object's id, the pack's and the index's checksums, each entry's CRC-32.

/** A git object's id: the SHA-1 of its header and content, in hex. */
export function objectId(type: ObjectType, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`, 'latin1').update(content).digest('hex');
}

/** The SHA-1 of `bytes` (a pack's or an index's checksum). */
export function sha1(bytes: Buffer): Buffer {
  return createHash('sha1').update(bytes).digest();
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
