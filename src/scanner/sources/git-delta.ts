/**
 * Applies a git delta (a pack's `ofs-delta` or `ref-delta` data, inflated) to its base: two sizes, then copy
 * instructions (a range of the base) and insert instructions (bytes that follow). Throws on a delta that does not
 * fit its base or its own stated sizes, or whose result would pass `maxBytes` (checked before anything is
 * allocated: a few kilobytes of copies of one base can state gigabytes): a corrupt pack is that object's read
 * failure, never wrong content.
 */
export function applyDelta(delta: Uint8Array, base: Uint8Array, maxBytes = Number.MAX_SAFE_INTEGER): Buffer {
  let position = 0;
  const readSize = (): number => {
    const size = readVarint(delta, position);
    if (size === undefined) throw new Error('corrupt git delta: truncated size');
    position = size.next;
    return size.value;
  };
  if (readSize() !== base.length) throw new Error('corrupt git delta: its base has another size');
  const size = readSize();
  if (!(size <= maxBytes)) throw new Error(`git delta: its result of ${size} bytes is over the ${maxBytes} bytes an object read may hold`);
  // every instruction is at least a byte and writes at most the whole base or 127 bytes: a size beyond that is a lie
  if (size > (delta.length - position) * Math.max(base.length, 127)) throw new Error('corrupt git delta: a size its instructions cannot reach');
  const result = Buffer.allocUnsafe(size);
  let written = 0;
  while (position < delta.length) {
    const instruction = delta[position++]!;
    if (instruction & 0x80) {
      // copy: up to 4 offset bytes and 3 size bytes, each present when its bit is set; size 0 means 0x10000
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (instruction & (1 << bit)) offset += delta[position++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (instruction & (0x10 << bit)) size += delta[position++]! * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (position > delta.length || offset + size > base.length || written + size > result.length) throw new Error('corrupt git delta: a copy out of range');
      copyBytes(base, offset, size, result, written);
      written += size;
    } else if (instruction !== 0) {
      // insert: the next `instruction` bytes
      if (position + instruction > delta.length || written + instruction > result.length) throw new Error('corrupt git delta: an insert out of range');
      copyBytes(delta, position, instruction, result, written);
      position += instruction;
      written += instruction;
    } else {
      throw new Error('corrupt git delta: instruction 0 is reserved');
    }
  }
  if (written !== result.length) throw new Error('corrupt git delta: its result is shorter than it says');
  return result;
}

/**
 * Copies `size` bytes of `from` at `start` into `to` at `at`: a short run byte by byte, a long one by `set`. A delta's
 * copies and inserts are mostly a few dozen bytes, and `set` needs a view made for each (`subarray`): ~1.8 KB of heap
 * per delta applied, a fifth of all a cold 100,000-tool scan's reading allocated (issue #18).
 */
function copyBytes(from: Uint8Array, start: number, size: number, to: Uint8Array, at: number): void {
  if (size > SHORT_COPY) {
    to.set(from.subarray(start, start + size), at);
    return;
  }
  for (let index = 0; index < size; index++) to[at + index] = from[start + index]!;
}

// past this many bytes a view costs less than the loop
const SHORT_COPY = 64;

/** A little-endian base-128 number: a delta's two sizes (read whole by `applyDelta`, or from a delta's first bytes for its object's size); `undefined` when truncated, and throws past a safe integer. */
export function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } | undefined {
  let value = 0;
  let shift = 0;
  for (let position = start; position < bytes.length; position++) {
    // git reads a delta's sizes into 64 bits; here a size must be a safe integer (~150 bytes of it read as NaN)
    if (shift > 63) throw new Error('corrupt git delta: a size runs past 64 bits');
    const byte = bytes[position]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) {
      if (!Number.isSafeInteger(value)) throw new Error(`corrupt git delta: a size of ${value} bytes, past any an object may have`);
      return { value, next: position + 1 };
    }
  }
  return undefined;
}
