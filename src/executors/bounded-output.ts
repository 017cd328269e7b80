import { isUtf8 } from 'node:buffer';

/** How captured bytes are turned into the text of a result. */
export type OutputEncoding = 'utf8' | 'base64';

/** The text kept from one output channel, and what the cap left out. */
export interface RenderedOutput {
  /** head, cut marker and tail; never longer than the capacity in bytes */
  text: string;
  /** bytes the channel produced */
  totalBytes: number;
  /** bytes of the channel not in `text` */
  cutBytes: number;
  /** rendered as UTF-8, the kept bytes were not valid UTF-8: `text` shows each invalid sequence as U+FFFD */
  lossy?: true;
}

/** The marker placed where bytes were left out: `[… N bytes cut of M …]` on a line of its own. */
export function cutMarker(cutBytes: number, totalBytes: number): string {
  return `\n[… ${cutBytes} bytes cut of ${totalBytes} …]\n`;
}

/**
 * Keeps the first and the last bytes of a stream of any length within a fixed capacity:
 * the head is kept as it arrives, the tail in a ring buffer allocated only once the head is full.
 */
export class BoundedOutput {
  readonly capacity: number;
  readonly #headCapacity: number;
  readonly #tailCapacity: number;
  readonly #headChunks: Buffer[] = [];
  #headLength = 0;
  #ring: Buffer | undefined;
  /** next write position in the ring */
  #ringPosition = 0;
  /** bytes ever written to the ring, capped at its size */
  #ringLength = 0;
  #totalBytes = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new TypeError(`output capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#headCapacity = Math.ceil(capacity / 2);
    this.#tailCapacity = capacity - this.#headCapacity;
  }

  /** bytes pushed so far */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Takes one chunk; memory stays within the capacity plus the last chunk kept by the head. */
  push(chunk: Buffer): void {
    this.#totalBytes += chunk.length;
    let rest = chunk;
    const headRoom = this.#headCapacity - this.#headLength;
    if (headRoom > 0) {
      const taken = rest.subarray(0, headRoom);
      // a copy, so that a small head slice never pins a large pooled chunk
      this.#headChunks.push(Buffer.from(taken));
      this.#headLength += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length > 0 && this.#tailCapacity > 0) this.#pushTail(rest);
  }

  #pushTail(chunk: Buffer): void {
    const ring = (this.#ring ??= Buffer.allocUnsafe(this.#tailCapacity));
    const size = ring.length;
    const kept = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk;
    const first = Math.min(kept.length, size - this.#ringPosition);
    kept.copy(ring, this.#ringPosition, 0, first);
    kept.copy(ring, 0, first);
    this.#ringPosition = (this.#ringPosition + kept.length) % size;
    this.#ringLength = Math.min(size, this.#ringLength + kept.length);
  }

  /** The head and tail as one buffer each, in stream order. */
  #parts(): { head: Buffer; tail: Buffer } {
    const head = Buffer.concat(this.#headChunks, this.#headLength);
    const ring = this.#ring;
    if (!ring || this.#ringLength === 0) return { head, tail: Buffer.alloc(0) };
    if (this.#ringLength < ring.length) return { head, tail: ring.subarray(0, this.#ringLength) };
    return { head, tail: Buffer.concat([ring.subarray(this.#ringPosition), ring.subarray(0, this.#ringPosition)]) };
  }

  /**
   * The kept bytes as text; when bytes were cut, the marker counts them and the whole stays within `capacity`
   * (the buffer's own, or less: an HTTP error body read under a response's cap is kept under a tool's).
   */
  render(encoding: OutputEncoding = 'utf8', capacity = this.capacity): RenderedOutput {
    const { head, tail } = this.#parts();
    const total = this.#totalBytes;
    const encodedLength = encoding === 'base64' ? 4 * Math.ceil(total / 3) : total;
    if (total === head.length + tail.length && encodedLength <= capacity) {
      const whole = Buffer.concat([head, tail]);
      return { text: whole.toString(encoding), totalBytes: total, cutBytes: 0, ...lossiness(encoding, whole) };
    }
    // the marker's own length depends on the numbers in it: reserve for the largest it can be
    const budget = Math.max(0, Math.min(capacity, this.capacity) - Buffer.byteLength(cutMarker(total, total)));
    const { headBytes, tailBytes } =
      encoding === 'base64' ? base64Split(budget, head, tail) : utf8Split(budget, head, tail);
    const cutBytes = total - headBytes.length - tailBytes.length;
    const text = headBytes.toString(encoding) + cutMarker(cutBytes, total) + tailBytes.toString(encoding);
    return { text, totalBytes: total, cutBytes, ...lossiness(encoding, headBytes, tailBytes) };
  }
}

// a text decoded from bytes that are not UTF-8 says so: the receipt's output is meant raw (review N, N6)
function lossiness(encoding: OutputEncoding, ...parts: Buffer[]): { lossy?: true } {
  return encoding === 'utf8' && !parts.every((part) => isUtf8(part)) ? { lossy: true } : {};
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

// Cuts on character boundaries, so that no half character turns into a replacement sign.
function utf8Split(budget: number, head: Buffer, tail: Buffer): { headBytes: Buffer; tailBytes: Buffer } {
  let headEnd = Math.min(head.length, Math.floor(budget / 2));
  while (headEnd > 0 && isContinuationByte(head[headEnd])) headEnd -= 1;
  let tailStart = Math.max(0, tail.length - (budget - headEnd));
  while (tailStart < tail.length && isContinuationByte(tail[tailStart])) tailStart += 1;
  return { headBytes: head.subarray(0, headEnd), tailBytes: tail.subarray(tailStart) };
}

// Cuts on 3-byte groups, so that head and tail each decode on their own.
function base64Split(budget: number, head: Buffer, tail: Buffer): { headBytes: Buffer; tailBytes: Buffer } {
  const headChars = Math.floor(budget / 2 / 4) * 4;
  const headEnd = Math.min(head.length, (headChars / 4) * 3);
  const tailChars = Math.floor((budget - 4 * Math.ceil(headEnd / 3)) / 4) * 4;
  const tailStart = Math.max(0, tail.length - (tailChars / 4) * 3);
  return { headBytes: head.subarray(0, headEnd), tailBytes: tail.subarray(tailStart) };
}

/** Bytes already in memory, kept within `capacity` the same way a stream would be. */
export function boundBytes(bytes: Buffer | string, capacity: number, encoding: OutputEncoding = 'utf8'): RenderedOutput {
  const output = new BoundedOutput(capacity);
  output.push(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  return output.render(encoding);
}
