import { BoundedOutput } from './bounded-output.js';
import { JsonTextDecoder } from './json-text-decoder.js';

const QUOTE = 0x22;

/** What a JsonStringCutter left out of the strings it cut. */
export interface StringCuts {
  /** bytes of the strings' text (as UTF-8) left out */
  cutBytes: number;
  /** bytes of the cut markers put in their place */
  markerBytes: number;
}

/** One string a JsonStringCutter cut: its text's bytes (as UTF-8) before the cut, and those it left out. */
export interface CutString {
  totalBytes: number;
  cutBytes: number;
}

/**
 * Cuts the long strings of JSON text as it streams by, so that an answer of any length can still be parsed whole: a
 * string longer than `rawLimit` bytes on the wire is decoded into a `BoundedOutput` of `cap` bytes and written again
 * as its head, the cut marker and its tail (`[… N bytes cut of M …]`, as a tool's output is cut); every other byte
 * passes as it came. An MCP server's answer of 16 MB of text failed the call (MCP_ERROR) where every other executor's
 * over-cap output is a receipt with the output cut. Bytes outside strings are not parsed: an event stream's lines
 * (`event: message`, `data: {…}`) pass through around the JSON they carry.
 */
export class JsonStringCutter {
  readonly #cap: number;
  readonly #rawLimit: number;
  readonly #decoder = new JsonTextDecoder();
  #text: BoundedOutput | undefined;
  /** the string's bytes on the wire so far, kept while it is short enough to pass as it came */
  #raw: Buffer[] = [];
  #rawBytes = 0;
  #long = false;
  /** a string that is not JSON: the rest passes as it comes, for the parser to refuse */
  #passing = false;
  readonly cuts: StringCuts = { cutBytes: 0, markerBytes: 0 };
  /** each string cut, by the text written in its place: so that each can be counted where it ends up (once) */
  readonly #cutStrings = new Map<string, CutString>();

  constructor(cap: number, rawLimit: number) {
    this.#cap = cap;
    this.#rawLimit = Math.max(rawLimit, cap);
  }

  /** The bytes to hand on for `chunk` (none while a long string is being read). */
  push(chunk: Uint8Array): Buffer {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.#passing) return bytes;
    const out: Buffer[] = [];
    let at = 0;
    while (at < bytes.length) {
      if (!this.#decoder.reading) {
        const quote = bytes.indexOf(QUOTE, at);
        if (quote < 0) {
          out.push(bytes.subarray(at));
          break;
        }
        out.push(bytes.subarray(at, quote + 1));
        this.#text = new BoundedOutput(this.#cap);
        this.#decoder.start(this.#text);
        this.#raw = [];
        this.#rawBytes = 0;
        this.#long = false;
        at = quote + 1;
        continue;
      }
      const end = this.#decoder.read(bytes, at);
      if (this.#decoder.failure !== undefined) {
        this.#passing = true;
        if (!this.#long) out.push(...this.#raw);
        out.push(bytes.subarray(at));
        break;
      }
      if (!this.#long) {
        this.#raw.push(bytes.subarray(at, end));
        this.#rawBytes += end - at;
        if (this.#rawBytes > this.#rawLimit) {
          this.#long = true;
          this.#raw = [];
        }
      }
      at = end;
      if (!this.#decoder.reading) out.push(...this.#closed());
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** What was cut of the string that reads `text` now, if it is one this cutter cut. */
  cutOf(text: string): CutString | undefined {
    return this.#cutStrings.get(text);
  }

  // the string's rest up to its closing quote: as it came, or cut and written again
  #closed(): Buffer[] {
    if (!this.#long) return this.#raw;
    const rendered = this.#text!.render();
    this.cuts.cutBytes += rendered.cutBytes;
    this.cuts.markerBytes += Buffer.byteLength(rendered.text) - (rendered.totalBytes - rendered.cutBytes);
    this.#cutStrings.set(rendered.text, { totalBytes: rendered.totalBytes, cutBytes: rendered.cutBytes });
    // JSON.stringify's opening quote was handed on already
    return [Buffer.from(JSON.stringify(rendered.text).slice(1))];
  }
}
