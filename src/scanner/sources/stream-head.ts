import { createInflate } from 'node:zlib';
import { readVarint } from './git-delta.js';

/** The most bytes a delta's two sizes take at its start: two varints of up to 10 bytes (64 bits) each. */
export const DELTA_SIZES_BYTES = 20;

// the first span of an entry read for its stream's head: a stream zlib writes makes its first bytes within a few hundred
const FIRST_SPAN_BYTES = 16 * 1024;

/**
 * The first `want` bytes of the zlib stream that starts `from` bytes into a pack entry (fewer where the stream ends
 * first, none where it is broken: its read says why), however many empty blocks open it: each is a few bytes making
 * nothing, and 512 bytes of them gave a head of none (review Z17-8). `read(most)` gives the entry's first `most` bytes
 * (fewer where it ends), asked for a span twice as long each time, so that what is read is at most twice the entry's
 * bytes up to where the head is found. Inflated by a zlib stream that is destroyed as soon as the head is there: what
 * it makes past it (a few bytes can state megabytes) is never made, and nothing past the stream's end is looked at.
 */
export async function entryStreamHead(read: (most: number) => Buffer | Promise<Buffer>, from: number, want: number): Promise<Buffer> {
  const inflater = createInflate();
  const made: Buffer[] = [];
  let length = 0;
  let over = false;
  let wake = (): void => undefined;
  const stop = (): void => {
    over = true;
    wake();
  };
  inflater.on('data', (chunk: Buffer) => {
    const kept = chunk.subarray(0, want - length);
    made.push(Buffer.from(kept));
    length += kept.length;
    if (length < want) return;
    inflater.destroy();
    stop();
  });
  // the stream's end, or zlib's refusal of it
  inflater.once('end', stop).once('error', stop).once('close', stop);
  try {
    for (let pushed = from, most = from + FIRST_SPAN_BYTES; !over; most *= 2) {
      const bytes = await read(most);
      if (bytes.length > pushed) await new Promise<void>((resolve) => ((wake = resolve), inflater.write(bytes.subarray(pushed), () => resolve())));
      if (bytes.length < most) break;
      pushed = bytes.length;
    }
  } finally {
    inflater.destroy();
  }
  return Buffer.concat(made, length);
}

/** A delta's result size from its head (after its base's size); `undefined` when the head is too short to hold both. */
export function deltaResultSize(head: Uint8Array): number | undefined {
  const base = readVarint(head, 0);
  return base === undefined ? undefined : readVarint(head, base.next)?.value;
}
