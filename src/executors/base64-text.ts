import { randomBytes } from 'node:crypto';
import { BoundedOutput } from './bounded-output.js';

/** Each byte's kind in base64 as `atob` reads it: 0 not base64, 1 a digit of the alphabet, 2 `=`, 3 ASCII white space. */
const KIND = new Uint8Array(256);
for (const byte of Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')) KIND[byte] = 1;
KIND[0x3d] = 2;
for (const byte of [0x09, 0x0a, 0x0c, 0x0d, 0x20]) KIND[byte] = 3;

/**
 * The decoded text of a JSON string that may be a base64 payload (an MCP `image`'s or `audio`'s `data`, a resource's
 * `blob`), kept as any long string is (head and tail, within the cap), and read on the way for whether `atob` — the
 * check the official SDK client makes — would take it whole, and how many bytes it decodes to. A payload cut to its
 * head and tail is no longer base64, and the client refused the whole answer over it (`Invalid Base64 string`).
 */
export class Base64Text extends BoundedOutput {
  /** digits and `=` so far (white space is skipped, as `atob` skips it) */
  #digits = 0;
  /** the `=` at the end so far; a digit after one is not base64 */
  #padding = 0;
  #valid = true;

  override push(chunk: Buffer): void {
    super.push(chunk);
    if (!this.#valid) return;
    for (let at = 0; at < chunk.length; at += 1) {
      const kind = KIND[chunk[at]!]!;
      if (kind === 3) continue;
      if (kind === 0 || (kind === 1 && this.#padding > 0)) {
        this.#valid = false;
        return;
      }
      this.#digits += 1;
      if (kind === 2) this.#padding += 1;
    }
  }

  /** Whether `atob` takes the whole text: base64 digits, at most two `=` at the end of a length that is a multiple of 4. */
  get valid(): boolean {
    if (!this.#valid || this.#padding > 2) return false;
    return this.#padding === 0 ? this.#digits % 4 !== 1 : this.#digits % 4 === 0;
  }

  /** The bytes the text decodes to (when `valid`). */
  get decodedBytes(): number {
    return Math.floor(((this.#digits - this.#padding) * 3) / 4);
  }
}

/** Unique to the gateway's run: a stand-in no server can write before seeing one. */
const RUN = randomBytes(6).toString('hex');
let standIns = 0;

/**
 * Valid base64 put on the wire in place of a payload too long to keep: the SDK client takes the answer, and the
 * receipt lists the payload as left out, with its size (the cutter knows each stand-in by its text).
 */
export function base64StandIn(totalBytes: number): string {
  standIns += 1;
  return Buffer.from(`[hldp ${RUN}-${standIns}: ${totalBytes} bytes of base64 left out]`).toString('base64');
}
