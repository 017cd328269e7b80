import { unzlibSync } from 'fflate';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import type { PackEntry } from './pack-store.js';

// A pack entry's zlib stream inflated to its object (or delta), exactly the size its header states.

// zlib stops at the end of the entry's stream: the rest of the pack after it is ignored
export function inflateEntry(content: Buffer, entry: PackEntry): Buffer {
  const data = content.subarray(entry.data);
  return (entry.size <= SMALL_INFLATE_BYTES && data.length <= SMALL_INFLATE_BYTES && smallInflate(data, entry.size)) || nativeInflate(data, entry);
}

/**
 * The largest object, and the most of its stream's bytes, inflated in JavaScript (`fflate`) rather than by a zlib
 * engine: Node makes an engine for each `inflateSync` (a stream object, zlib's state and its 32 KiB window), which cost
 * more than inflating a ~1 KB definition or a ~60-byte delta (issue #18: 200,003 entries of a 100,000-tool pack inflated
 * in 0.21-0.24 s of CPU against 0.54-0.59 s). Its input is bounded so that a stream stating far more than its object
 * (which such an inflater decodes through, dropping the excess) costs at most ~4 MB of decoding before it is refused.
 */
export const SMALL_INFLATE_BYTES = 4096;

// `undefined` whenever the result is not exactly `size` bytes or the stream is not one zlib would read (a bad header, a
// preset dictionary, a broken code): the native inflate then reads it again and says why, as before. The one byte more
// of room tells a stream longer than `size` from one of exactly `size` (the JavaScript inflater writes past no end).
// It checks no Adler-32 (nor a stored block's length complement): a damaged stream can make other bytes of the stated
// size, which zlib refused by its check and the id check of every read (`ObjectReader`) refuses now; keep that check.
function smallInflate(data: Buffer, size: number): Buffer | undefined {
  try {
    const inflated = unzlibSync(data, { out: Buffer.allocUnsafe(size + 1) });
    return inflated.length === size ? (inflated as Buffer) : undefined;
  } catch {
    return undefined;
  }
}

function nativeInflate(data: Buffer, entry: PackEntry): Buffer {
  // an output chunk of the object's own size: with zlib's default 16 KB chunk, a small object kept its chunk alive (in
  // the base cache too). One byte more: a chunk the output fills exactly is, to Node, not known to be the end, so it
  // made a second chunk as large and called zlib again to learn that nothing more came (two buffers an object)
  const inflated = inflateSync(data, { maxOutputLength: Math.max(entry.size, 1), chunkSize: Math.max(entry.size + 1, zlibConstants.Z_MIN_CHUNK) });
  if (inflated.length !== entry.size) throw new Error(`corrupt pack: an object inflated to ${inflated.length} bytes where its header says ${entry.size}`);
  return inflated;
}
