import { createHash, hash } from 'node:crypto';
import zlib from 'node:zlib';
import type { ObjectType } from './pack-store.js';

// The hashes a pack and its index carry: each object's id, the pack's and the index's checksums, each entry's CRC-32.

/**
 * A git object's id: the SHA-1 of its header and content, in hex. A small object's header and content are copied into
 * one buffer and hashed at once (`crypto.hash`): a `Hash` object each (a JavaScript object over a native one, let go by
 * the collector) cost more than the copy, for the ~400,000 objects a cold 100,000-tool scan hashes (issue #18).
 */
export function objectId(type: ObjectType, content: Uint8Array): string {
  const header = `${type} ${content.length}\0`;
  const length = header.length + content.length;
  if (length > HASHED_AT_ONCE.length) return createHash('sha1').update(header, 'latin1').update(content).digest('hex');
  HASHED_AT_ONCE.write(header, 0, 'latin1');
  HASHED_AT_ONCE.set(content, header.length);
  return hash('sha1', HASHED_AT_ONCE.subarray(0, length), 'hex');
}

// one buffer for every small object's header and content (hashed synchronously: never two at once)
const HASHED_AT_ONCE = Buffer.allocUnsafeSlow(64 * 1024);

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
