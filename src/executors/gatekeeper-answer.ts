import { BoundedOutput, type RenderedOutput } from './bounded-output.js';
import { JsonTextDecoder } from './json-text-decoder.js';

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
  /** the text field being read, decoded into its BoundedOutput */
  readonly #decoder = new JsonTextDecoder();
  readonly #texts: Partial<Record<TextField, BoundedOutput>> = {};
  /** the kept field being read (its raw JSON), or undefined while a value is skipped */
  #value: number[] | undefined;
  #valueName = '';
  readonly #raw = new Map<string, string>();
  /** inside a value being followed: bracket depth, whether in a string, whether the last byte was a backslash there */
  #depth = 0;
  #inString = false;
  #escaped = false;

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
      if (this.#state === State.InText) {
        at = this.#decoder.read(chunk, at);
        if (this.#decoder.failure !== undefined) this.#fail(this.#decoder.failure);
        else if (!this.#decoder.reading) this.#state = State.AfterValue;
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
      this.#decoder.start((this.#texts[textField] = new BoundedOutput(this.cap)));
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

}
