/** What a LineReader found in the bytes pushed to it. */
export type LineEvent =
  /** a whole line, without its newline */
  | { kind: 'line'; line: Buffer }
  /** line number `line` (counted from 0) passed `bound` once `bytes` of it had come: what was held of it is let go, the rest is skipped */
  | { kind: 'passed'; line: number; bytes: number; bound: number }
  /** line number `line`, skipped since it passed `bound`, ended: it held `bytes` bytes */
  | { kind: 'skipped'; line: number; bytes: number; bound: number };

/**
 * Newline-delimited lines from a stream, each end looked for only in the bytes that just came. The SDK's `ReadBuffer`
 * joined its whole buffer to each chunk and searched it from the start: a 64 MiB line in 64 KiB pipe chunks copied
 * ~34 GB on the event loop (512 s measured; a server-filesystem `read_file` of a large log is such a line).
 *
 * A line is held up to `bound()` bytes, asked as each piece of it comes (what the calls waiting may receive changes as they
 * come and go). A longer one is not held: it is said to have passed when it does, counted as it streams by, and said to
 * be skipped at its newline, where the lines after it are read again as before (a stdio server's 60 MiB answer was
 * held whole, and parsed, for a call that would keep 64 KiB of it: review S, S9).
 */
export class LineReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** the bytes of the line being skipped, and the bound it passed; undefined while a line is held */
  #skipping: { bytes: number; bound: number } | undefined;
  #ended = 0;

  constructor(private readonly bound: () => number) {}

  /** The bytes held of the line not yet ended: never more than the bound. */
  get buffered(): number {
    return this.#pendingBytes;
  }

  /** How many lines ended so far: the number of the line being read. */
  get linesEnded(): number {
    return this.#ended;
  }

  /** Whether bytes of the line being read have come (it began before whatever is sent now could be answered in it). */
  get midLine(): boolean {
    return this.#pendingBytes > 0 || this.#skipping !== undefined;
  }

  /** What `chunk` completes, passes or skips, in stream order. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      this.#take(chunk.subarray(start, newline), events);
      if (this.#skipping) {
        events.push({ kind: 'skipped', line: this.#ended, ...this.#skipping });
        this.#skipping = undefined;
      } else {
        events.push({ kind: 'line', line: this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes) });
      }
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#ended += 1;
      start = newline + 1;
    }
    // taken even when empty: a bound that shrank since the last chunk (a call waiting went) may be passed by what is held
    this.#take(chunk.subarray(start), events);
    return events;
  }

  /** Holds `part` of the current line, or counts it when the line is (or now becomes) skipped. */
  #take(part: Buffer, events: LineEvent[]): void {
    if (this.#skipping) {
      this.#skipping.bytes += part.length;
      return;
    }
    const bound = this.bound();
    const bytes = this.#pendingBytes + part.length;
    if (bytes > bound) {
      events.push({ kind: 'passed', line: this.#ended, bytes, bound });
      this.#skipping = { bytes, bound };
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    if (part.length > 0) this.#pending.push(part);
    this.#pendingBytes = bytes;
  }
}
