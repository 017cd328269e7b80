import { Base64Text, base64StandIn } from './base64-text.js';
import { BoundedOutput } from './bounded-output.js';
import { JsonTextDecoder } from './json-text-decoder.js';

const QUOTE = 0x22;
const COLON = 0x3a;
/** The keys of the MCP content blocks' base64 payloads (`image`, `audio`: `data`; a resource's `blob`), each with its closing quote. */
const PAYLOAD_KEYS = [Buffer.from('data"'), Buffer.from('blob"')];
const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

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
  /**
   * For a base64 payload replaced whole by a stand-in (valid base64, so that the SDK client takes the answer): the
   * bytes it decodes to, and the payload as any long string is cut (head, marker, tail), to show where it is not an
   * attachment (`structuredContent`).
   */
  base64?: { decodedBytes: number; cutText: string };
}

/**
 * Cuts the long strings of JSON text as it streams by, so that an answer of any length can still be parsed whole: a
 * string longer than `rawLimit` bytes on the wire is decoded into a `BoundedOutput` of `cap` bytes and written again
 * as its head, the cut marker and its tail (`[… N bytes cut of M …]`, as a tool's output is cut); every other byte
 * passes as it came. An MCP server's answer of 16 MB of text failed the call (MCP_ERROR) where every other executor's
 * over-cap output is a receipt with the output cut. Bytes outside strings are not parsed: an event stream's lines
 * (`event: message`, `data: {…}`) pass through around the JSON they carry. A long string that is the value of a
 * `data` or `blob` key and valid base64 is written again as a stand-in (`base64StandIn`), itself valid base64: cut
 * to its head and tail, an image's data was refused by the SDK client (`Invalid Base64 string`) and the whole call
 * failed MCP_ERROR, its text blocks lost (left by fixu29c).
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
  /** the last string closed was a payload's key (`data`, `blob`), and the bytes since are white space and this many colons */
  #afterKey = false;
  #colons = 0;
  /** a string that is not JSON: the rest passes as it comes, for the parser to refuse */
  #passing = false;
  readonly cuts: StringCuts = { cutBytes: 0, markerBytes: 0 };
  /** whether a base64 payload was written again as a stand-in */
  stoodIn = false;
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
        if (this.#afterKey) this.#between(bytes, at, quote < 0 ? bytes.length : quote);
        if (quote < 0) {
          out.push(bytes.subarray(at));
          break;
        }
        out.push(bytes.subarray(at, quote + 1));
        // the value of a payload's key may be base64, read as such on the way
        this.#text = this.#afterKey && this.#colons === 1 ? new Base64Text(this.#cap) : new BoundedOutput(this.#cap);
        this.#afterKey = false;
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
      if (this.#decoder.reading) continue;
      this.#afterKey = !this.#long && this.#rawBytes === 5 && PAYLOAD_KEYS.some((key) => key.equals(Buffer.concat(this.#raw)));
      this.#colons = 0;
      out.push(...this.#closed());
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** What was cut of the string that reads `text` now, if it is one this cutter cut. */
  cutOf(text: string): CutString | undefined {
    return this.#cutStrings.get(text);
  }

  // the bytes from `from` to `to`, outside strings after a payload's key: still a key and its colon, or not
  #between(bytes: Buffer, from: number, to: number): void {
    for (let at = from; at < to && this.#afterKey; at += 1) {
      const byte = bytes[at]!;
      if (byte === COLON) this.#colons += 1;
      else if (!isSpace(byte)) this.#afterKey = false;
    }
  }

  // the string's rest up to its closing quote: as it came, or cut and written again
  #closed(): Buffer[] {
    if (!this.#long) return this.#raw;
    const rendered = this.#text!.render();
    if (this.#text instanceof Base64Text && this.#text.valid) {
      // left out whole: none of its bytes is in the answer, and the stand-in is not the server's
      const standIn = base64StandIn(rendered.totalBytes);
      this.stoodIn = true;
      this.cuts.cutBytes += rendered.totalBytes;
      this.cuts.markerBytes += standIn.length;
      this.#cutStrings.set(standIn, { totalBytes: rendered.totalBytes, cutBytes: rendered.totalBytes, base64: { decodedBytes: this.#text.decodedBytes, cutText: rendered.text } });
      return [Buffer.from(`${standIn}"`)];
    }
    this.cuts.cutBytes += rendered.cutBytes;
    this.cuts.markerBytes += Buffer.byteLength(rendered.text) - (rendered.totalBytes - rendered.cutBytes);
    this.#cutStrings.set(rendered.text, { totalBytes: rendered.totalBytes, cutBytes: rendered.cutBytes });
    // JSON.stringify's opening quote was handed on already
    return [Buffer.from(JSON.stringify(rendered.text).slice(1))];
  }
}
