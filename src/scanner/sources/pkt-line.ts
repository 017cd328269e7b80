/**
 * Git's pkt-line framing (the smart protocol's): four hex digits giving the line's length including themselves, then
 * the payload; `0000` is a flush, `0001` a delimiter (protocol v2). A server's answer is read from memory, so every
 * length is checked against what is there: a short or lying answer is an error, never a read past its end.
 */

/** One packet: a flush, or its payload. */
export type Packet = { flush: true } | { flush: false; payload: Buffer };

/** The largest packet git sends or accepts (LARGE_PACKET_MAX). */
export const MAX_PACKET_BYTES = 65520;

/** A data packet of `text` (written as git writes them: its length in lowercase hex). */
export function packetLine(text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (payload.length + 4 > MAX_PACKET_BYTES) throw new RangeError(`a pkt-line holds at most ${MAX_PACKET_BYTES - 4} bytes, not ${payload.length}`);
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0'), 'latin1'), payload]);
}

/** The flush packet. */
export const FLUSH = Buffer.from('0000', 'latin1');

/** Reads packets from `bytes` starting at `start`, one at a time: each call gives the next packet and where the one after begins. */
export function readPacket(bytes: Buffer, start: number): { packet: Packet; next: number } {
  if (start + 4 > bytes.length) throw new Error(`malformed pkt-line: the answer ends inside a length at byte ${start}`);
  const digits = bytes.toString('latin1', start, start + 4);
  if (!/^[0-9a-f]{4}$/i.test(digits)) throw new Error(`malformed pkt-line: '${printable(digits)}' at byte ${start} is not a hex length`);
  const length = Number.parseInt(digits, 16);
  if (length === 0) return { packet: { flush: true }, next: start + 4 };
  // 0001 (delimiter) and 0002 (response end) are protocol v2's; this client speaks v0/v1, where they cannot occur
  if (length < 4) throw new Error(`malformed pkt-line: length ${length} at byte ${start}`);
  if (start + length > bytes.length) throw new Error(`malformed pkt-line: a line of ${length} bytes at byte ${start} runs past the answer's ${bytes.length}`);
  return { packet: { flush: false, payload: bytes.subarray(start + 4, start + length) }, next: start + length };
}

/** A packet's payload as text without its trailing newline (git ends text lines with one, optionally). */
export function packetText(payload: Buffer): string {
  const end = payload.length > 0 && payload[payload.length - 1] === 0x0a ? payload.length - 1 : payload.length;
  return payload.toString('utf8', 0, end);
}

function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
