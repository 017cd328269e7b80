import { BoundedOutput, type RenderedOutput } from './bounded-output.js';

/** The text fields of a gatekeeper's result, kept head and tail as a local run's output is. */
export const TEXT_FIELDS = ['output', 'stderr', 'error'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The other fields of a result that are read (each a short JSON value); any other member is skipped unread. */
const KEPT_FIELDS: ReadonlySet<string> = new Set(['ok', 'code', 'exit_code', 'signal', 'timed_out', 'output_bytes', 'cut_bytes', 'duration_ms', 'resource_limit', 'output_lossy', 'stderr_lossy']);
/** The most bytes of JSON one kept field's value may take. */
export const MAX_FIELD_BYTES = 4096;
/** How much of an answer that is not a result its receipt quotes. */
const HEAD_BYTES = 200;
/** The most bytes of a member's name that are read (the longest kept name is far shorter). */
const MAX_KEY_BYTES = 64;

/** A gatekeeper's answer as read: its text fields bounded, its other kept fields parsed. */
export interface ReadAnswer {
  texts: Partial<Record<TextField, RenderedOutput>>;
  fields: Record<string, unknown>;
  /** bytes of the answer */
  bytes: number;
}

const enum State {
  BeforeObject,
  BeforeKey,
  InKey,
  AfterKey,
  BeforeValue,
  InText,
  InValue,
  AfterValue,
  Done,
}

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
/** The most bytes one step of `#textRun` writes to the scratch buffer: U+FFFD for a lone high half, then a run or a character. */
const MAX_STEP_BYTES = 3 + SHORT_RUN;

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Reads a gatekeeper's JSON answer (`{ok, output, error, stderr, …}`) as it arrives, at any size, in memory bounded by
 * the tool's cap: the strings `output`, `stderr` and `error` are decoded into a `BoundedOutput` each (head and tail,
 * the cut marked and counted as a local run's output is), the other fields of a result are kept up to
 * MAX_FIELD_BYTES each and parsed at the end, and any other member is skipped. Before, the answer was read whole under a
 * cap of 12 × max_output_bytes + 64 KiB and parsed; past that cap it was dropped, and the receipt kept nothing of
 * what the tool printed (review K, K11).
 *
 * A member repeated keeps its last value, as JSON.parse does. The text of a string is what JSON.parse would make of it,
 * as UTF-8 (a lone surrogate escape is U+FFFD, as Buffer.from writes it); its raw bytes pass as they came. Skipped
 * members are followed by their brackets and strings only, not checked token by token.
 */
export class GatekeeperAnswerReader {
  #state = State.BeforeObject;
  #failure: string | undefined;
  #bytes = 0;
  /** the answer's first bytes, quoted when it is not a result (a proxy's page says where the request went) */
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #key: number[] = [];
  #keyEscaped = false;
  #members = 0;
  #text: BoundedOutput | undefined;
  readonly #texts: Partial<Record<TextField, BoundedOutput>> = {};
  /** the kept field being read (its raw JSON), or undefined while a value is skipped */
  #value: number[] | undefined;
  #valueName = '';
  readonly #raw = new Map<string, string>();
  /** inside a value being followed: bracket depth, whether in a string, whether the last byte was a backslash there */
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** an escape in a text: the bytes after the backslash so far (`u` and up to four hex digits) */
  #escape: number[] | undefined;
  /** a high surrogate waiting for its low half */
  #high: number | undefined;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    if (this.#headBytes < HEAD_BYTES) {
      const taken = Buffer.from(chunk.subarray(0, HEAD_BYTES - this.#headBytes));
      this.#head.push(taken);
      this.#headBytes += taken.length;
    }
    this.#bytes += chunk.length;
    let at = 0;
    while (at < chunk.length && this.#failure === undefined) {
      if (this.#state === State.InText && this.#escape === undefined) {
        at = this.#textRun(chunk, at);
        continue;
      }
      this.#byte(chunk[at]!);
      at += 1;
    }
  }

  /** The answer read, or what is wrong with it. */
  result(): ReadAnswer | string {
    const head = (): string => `: ${Buffer.concat(this.#head).toString('utf8')}`;
    if (this.#failure !== undefined) return this.#failure + head();
    if (this.#state !== State.Done) return this.#bytes === 0 ? 'an empty body' : `JSON that ends before its object does (after ${this.#bytes} bytes)${head()}`;
    const fields: Record<string, unknown> = {};
    for (const [name, raw] of this.#raw) {
      try {
        fields[name] = JSON.parse(raw);
      } catch {
        return `a result whose '${name}' is not JSON: ${raw.slice(0, HEAD_BYTES)}`;
      }
    }
    return { ...this.partial(), fields };
  }

  /**
   * What was read of the texts so far, the one being read included: a call whose answer stops coming (its deadline
   * passes, the caller cancels, the connection drops) keeps it, as a local run that times out keeps its output.
   */
  partial(): { texts: Partial<Record<TextField, RenderedOutput>>; bytes: number } {
    const texts: Partial<Record<TextField, RenderedOutput>> = {};
    for (const field of TEXT_FIELDS) {
      const text = this.#texts[field];
      if (text) texts[field] = text.render();
    }
    return { texts, bytes: this.#bytes };
  }

  #fail(why: string): void {
    this.#failure ??= `JSON that is not a result (${why})`;
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
      // room for one step: a replacement sign and a short run or a character
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
        this.#state = State.AfterValue;
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

  #byte(byte: number): void {
    switch (this.#state) {
      case State.BeforeObject:
        if (byte === 0x7b) this.#state = State.BeforeKey;
        else if (!isSpace(byte)) this.#fail('not an object');
        return;
      case State.BeforeKey:
        if (byte === QUOTE) {
          this.#key = [];
          this.#keyEscaped = false;
          this.#state = State.InKey;
        } else if (byte === 0x7d && this.#members === 0) this.#state = State.Done;
        else if (!isSpace(byte)) this.#fail('a member without a quoted name');
        return;
      case State.InKey:
        if (this.#keyEscaped) this.#keyEscaped = false;
        else if (byte === BACKSLASH) this.#keyEscaped = true;
        else if (byte === QUOTE) return void (this.#state = State.AfterKey);
        // a longer name is no field of a result: it is kept cut, so that it matches none
        if (this.#key.length <= MAX_KEY_BYTES) this.#key.push(byte);
        return;
      case State.AfterKey:
        if (byte === 0x3a) this.#state = State.BeforeValue;
        else if (!isSpace(byte)) this.#fail("a member name without ':'");
        return;
      case State.BeforeValue:
        if (isSpace(byte)) return;
        return this.#startValue(byte);
      case State.InText:
        return this.#escapeByte(byte);
      case State.InValue:
        return this.#valueByte(byte);
      case State.AfterValue:
        if (byte === 0x2c) this.#state = State.BeforeKey;
        else if (byte === 0x7d) this.#state = State.Done;
        else if (!isSpace(byte)) this.#fail("a value followed by neither ',' nor '}'");
        return;
      case State.Done:
        if (!isSpace(byte)) this.#fail('more after the object');
        return;
    }
  }

  #name(): string | undefined {
    if (this.#key.length > MAX_KEY_BYTES) return undefined;
    try {
      return JSON.parse(`"${Buffer.from(this.#key).toString('utf8')}"`) as string;
    } catch {
      return undefined;
    }
  }

  #startValue(byte: number): void {
    this.#members += 1;
    const name = this.#name();
    const textField = name !== undefined && (TEXT_FIELDS as readonly string[]).includes(name) ? (name as TextField) : undefined;
    if (textField !== undefined) {
      // a member repeated keeps its last value, as JSON.parse does
      delete this.#texts[textField];
      this.#raw.delete(textField);
    }
    if (textField !== undefined && byte === QUOTE) {
      this.#text = this.#texts[textField] = new BoundedOutput(this.cap);
      this.#high = undefined;
      this.#state = State.InText;
      return;
    }
    // a text field that is not a string is kept as it came, for the result's check to refuse
    const kept = textField !== undefined || (name !== undefined && KEPT_FIELDS.has(name));
    this.#value = kept ? [] : undefined;
    this.#valueName = name ?? '';
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#state = State.InValue;
    this.#valueByte(byte);
  }

  // a value followed to its end: brackets counted, strings passed over; a kept one's bytes collected
  #valueByte(byte: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#depth === 0) return this.#keep(byte, true);
      }
      return this.#keep(byte, false);
    }
    if (byte === QUOTE) this.#inString = true;
    else if (byte === 0x7b || byte === 0x5b) this.#depth += 1;
    else if (byte === 0x7d || byte === 0x5d) {
      if (this.#depth === 0) {
        // the object's own end, after a bare value (a number, true, null)
        this.#endValue();
        return this.#byte(byte);
      }
      this.#depth -= 1;
      if (this.#depth === 0) return this.#keep(byte, true);
    } else if (this.#depth === 0 && (byte === 0x2c || isSpace(byte))) {
      this.#endValue();
      return this.#byte(byte);
    }
    this.#keep(byte, false);
  }

  #keep(byte: number, last: boolean): void {
    if (this.#value !== undefined) {
      if (this.#value.length >= MAX_FIELD_BYTES) return this.#fail(`a '${this.#valueName}' longer than ${MAX_FIELD_BYTES} bytes`);
      this.#value.push(byte);
    }
    if (last) this.#endValue();
  }

  #endValue(): void {
    if (this.#value !== undefined) this.#raw.set(this.#valueName, Buffer.from(this.#value).toString('utf8'));
    this.#value = undefined;
    this.#state = State.AfterValue;
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
