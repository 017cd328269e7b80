import type { BoundedOutput } from './bounded-output.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');
/** The byte each one-letter escape stands for, by the letter; -1 for none. */
const SIMPLE_ESCAPES = new Int16Array(256).fill(-1);
for (const [letter, byte] of [[0x22, 0x22], [0x5c, 0x5c], [0x2f, 0x2f], [0x62, 0x08], [0x66, 0x0c], [0x6e, 0x0a], [0x72, 0x0d], [0x74, 0x09]]) SIMPLE_ESCAPES[letter!] = byte!;

/**
 * Where a text's decoded bytes are gathered before they go to its BoundedOutput (which copies them): one for the
 * module, as a text run is read synchronously from start to flush.
 */
const SCRATCH = Buffer.allocUnsafe(64 * 1024);
/** A plain run scanned in JS before indexOf takes over, and the longest copied to the scratch buffer, not pushed as a slice. */
const SHORT_RUN = 32;
/**
 * More than the most bytes one step of `#textRun` writes to the scratch buffer: U+FFFD for a lone high half (3), a short
 * run (up to SHORT_RUN), then an escape — a character, a pair (4), or U+FFFD for a high half then a character (6). At
 * 3 + SHORT_RUN an escape after a full run went past the buffer's end and its bytes were dropped (review Q, Q3).
 */
const MAX_STEP_BYTES = 3 + SHORT_RUN + 6;

/**
 * Decodes the bytes of a JSON string, from just after its opening quote to its closing one, into a `BoundedOutput`, as
 * they arrive in chunks: its text is what JSON.parse would make of it, as UTF-8 (a lone surrogate escape is U+FFFD, as
 * Buffer.from writes it); its raw bytes pass as they came. Escapes are decoded in bulk (`#textRun`); one cut by a
 * chunk's end is finished byte by byte (`#escapeByte`). Split from `GatekeeperAnswerReader`, which reads the answer's
 * structure around its strings.
 */
export class JsonTextDecoder {
  #text: BoundedOutput | undefined;
  /** an escape in a text: the bytes after the backslash so far (`u` and up to four hex digits) */
  #escape: number[] | undefined;
  /** a high surrogate waiting for its low half */
  #high: number | undefined;
  /** why the string is not JSON, once it is not */
  failure: string | undefined;

  /** Starts a string, just after its opening quote: its text goes to `text`. */
  start(text: BoundedOutput): void {
    this.#text = text;
    this.#escape = undefined;
    this.#high = undefined;
  }

  /** Whether a string is being read (its closing quote not reached). */
  get reading(): boolean {
    return this.#text !== undefined;
  }

  /** Reads the string's bytes from `from`; returns where it stopped: after its closing quote, or at the chunk's end. */
  read(chunk: Buffer, from: number): number {
    let at = from;
    while (at < chunk.length && this.#text !== undefined && this.failure === undefined) {
      if (this.#escape === undefined) {
        at = this.#textRun(chunk, at);
        continue;
      }
      this.#escapeByte(chunk[at]!);
      at += 1;
    }
    return this.failure === undefined ? at : chunk.length;
  }

  #fail(why: string): void {
    this.failure ??= why;
  }

  /**
   * The bytes of a text from `from` up to its closing quote or the chunk's end, its escapes decoded in the same pass
   * into a reused scratch buffer: each escape cost a Buffer or four (one a character), ~2 µs, and a tool's 16 MB of
   * NULs (`\u0000` each) took the gateway's main thread past the call's deadline (review O, O7). Long plain runs go to
   * the output as slices of the chunk. An escape cut by the chunk's end is finished byte by byte (`#escapeByte`).
   */
  #textRun(chunk: Buffer, from: number): number {
    const text = this.#text!;
    const scratch = SCRATCH;
    let kept = 0;
    const flush = (): void => {
      if (kept > 0) text.push(scratch.subarray(0, kept));
      kept = 0;
    };
    // the next quote and backslash found by indexOf, each looked for again only once passed: every byte searched once
    let quote = -1;
    let backslash = -1;
    let at = from;
    while (at < chunk.length) {
      // room for one step: a replacement sign, a short run and an escape
      if (kept > scratch.length - MAX_STEP_BYTES) flush();
      // a high half followed by no escape stands alone
      if (this.#high !== undefined && chunk[at] !== BACKSLASH) kept = this.#writeReplacement(kept);
      // the plain run starting here: copied in JS for a few bytes (escape-dense text), then found by indexOf and
      // pushed as a slice (plain text)
      let end = at;
      const scanned = Math.min(chunk.length, at + SHORT_RUN);
      for (let byte = chunk[end]; end < scanned && byte !== QUOTE && byte !== BACKSLASH; byte = chunk[++end]) scratch[kept++] = byte!;
      if (end === scanned && end < chunk.length) {
        if (quote < end) quote = indexOrLength(chunk, QUOTE, end);
        if (backslash < end) backslash = indexOrLength(chunk, BACKSLASH, end);
        const runEnd = Math.min(quote, backslash);
        if (runEnd > end) {
          flush();
          text.push(chunk.subarray(end, runEnd));
          end = runEnd;
        }
      }
      at = end;
      if (at === chunk.length) break;
      if (chunk[at] === QUOTE) {
        flush();
        this.#text = undefined;
        return at + 1;
      }
      // an escape: `\x` or `\uXXXX`, whole in this chunk or left to the byte-by-byte reader
      const kind = at + 1 < chunk.length ? chunk[at + 1]! : -1;
      if (kind !== 0x75 && kind !== -1) {
        const simple = SIMPLE_ESCAPES[kind]!;
        if (simple < 0) {
          flush();
          this.#fail('an unknown escape in a string');
          return chunk.length;
        }
        if (this.#high !== undefined) kept = this.#writeReplacement(kept);
        scratch[kept++] = simple;
        at += 2;
        continue;
      }
      const unit = at + 6 <= chunk.length ? hexUnit(chunk, at + 2) : -2;
      if (unit === -2) {
        flush();
        this.#escape = [];
        return at + 1;
      }
      if (unit < 0) {
        flush();
        this.#fail('a \\u escape without four hex digits');
        return chunk.length;
      }
      kept = this.#writeUnit(unit, kept);
      at += 6;
    }
    flush();
    return chunk.length;
  }

  // a UTF-16 unit of a \u escape into the scratch buffer as UTF-8, a surrogate pair joined, a lone half as U+FFFD
  #writeUnit(unit: number, at: number): number {
    if (unit >= 0xdc00 && unit <= 0xdfff && this.#high !== undefined) {
      const point = 0x10000 + ((this.#high - 0xd800) << 10) + (unit - 0xdc00);
      this.#high = undefined;
      SCRATCH[at] = 0xf0 | (point >> 18);
      SCRATCH[at + 1] = 0x80 | ((point >> 12) & 0x3f);
      SCRATCH[at + 2] = 0x80 | ((point >> 6) & 0x3f);
      SCRATCH[at + 3] = 0x80 | (point & 0x3f);
      return at + 4;
    }
    let kept = this.#high === undefined ? at : this.#writeReplacement(at);
    if (unit >= 0xd800 && unit <= 0xdbff) this.#high = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) kept = this.#writeReplacement(kept);
    else if (unit < 0x80) SCRATCH[kept++] = unit;
    else if (unit < 0x800) {
      SCRATCH[kept++] = 0xc0 | (unit >> 6);
      SCRATCH[kept++] = 0x80 | (unit & 0x3f);
    } else {
      SCRATCH[kept++] = 0xe0 | (unit >> 12);
      SCRATCH[kept++] = 0x80 | ((unit >> 6) & 0x3f);
      SCRATCH[kept++] = 0x80 | (unit & 0x3f);
    }
    return kept;
  }

  // a high surrogate with no low half after it, as U+FFFD into the scratch buffer
  #writeReplacement(at: number): number {
    this.#high = undefined;
    REPLACEMENT.copy(SCRATCH, at);
    return at + REPLACEMENT.length;
  }

  #escapeByte(byte: number): void {
    const escape = this.#escape!;
    if (escape.length === 0) {
      const simple = SIMPLE_ESCAPES[byte]!;
      if (simple >= 0) {
        this.#flushHigh();
        this.#text!.push(Buffer.of(simple));
        this.#escape = undefined;
      } else if (byte === 0x75) escape.push(byte);
      else this.#fail('an unknown escape in a string');
      return;
    }
    const digit = hexValue(byte);
    if (digit < 0) return this.#fail('a \\u escape without four hex digits');
    escape.push(byte);
    if (escape.length < 5) return;
    this.#escape = undefined;
    const unit = Number.parseInt(Buffer.from(escape.slice(1)).toString('latin1'), 16);
    if (unit >= 0xdc00 && unit <= 0xdfff && this.#high !== undefined) {
      const point = 0x10000 + ((this.#high - 0xd800) << 10) + (unit - 0xdc00);
      this.#high = undefined;
      this.#text!.push(Buffer.from(String.fromCodePoint(point), 'utf8'));
      return;
    }
    this.#flushHigh();
    if (unit >= 0xd800 && unit <= 0xdbff) this.#high = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) this.#text!.push(REPLACEMENT);
    else this.#text!.push(Buffer.from(String.fromCharCode(unit), 'utf8'));
  }

  // a high surrogate with no low half after it: U+FFFD, as Buffer.from writes a lone one
  #flushHigh(): void {
    if (this.#high === undefined) return;
    this.#high = undefined;
    this.#text!.push(REPLACEMENT);
  }
}

// where `byte` next is at or after `from`, or the chunk's length
function indexOrLength(chunk: Buffer, byte: number, from: number): number {
  const found = chunk.indexOf(byte, from);
  return found === -1 ? chunk.length : found;
}

// the four hex digits at `at` as a number, or -1 when one is not a hex digit
function hexUnit(chunk: Buffer, at: number): number {
  const a = hexValue(chunk[at]!);
  const b = hexValue(chunk[at + 1]!);
  const c = hexValue(chunk[at + 2]!);
  const d = hexValue(chunk[at + 3]!);
  return (a | b | c | d) < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
