// The `read_bytes` hex dump: written by the gatekeeper, read back by the gateway to redact it (review Z4, F8).

/** Most file bytes one `read_bytes` call shows: a dump is ~4.5 times its bytes, so 8 KiB is already ~37 KB of text. */
export const MAX_READ_BYTES = 8 * 1024;

/** Bytes shown on one line of a `read_bytes` dump. */
export const BYTES_PER_ROW = 16;

/** `[bytes A-B of N]` (0-based, inclusive), and where to continue when bytes are left. */
export function bytesHeader(first: number, last: number, total: number): string {
  return last + 1 < total ? `[bytes ${first}-${last} of ${total}; continue with offset ${last + 1}]\n` : `[bytes ${first}-${last} of ${total}]\n`;
}

/** `0000001a  48 65 6c 6c 6f 0a 00 00 …  |Hello...|` — the offset in hex, the bytes, then the printable ones. */
export function dumpRow(bytes: Buffer, offset: number): string {
  const hex: string[] = [];
  for (let index = 0; index < BYTES_PER_ROW; index += 1) {
    hex.push(index < bytes.length ? bytes[index]!.toString(16).padStart(2, '0') : '  ');
    if (index === 7) hex.push('');
  }
  let printable = '';
  for (const byte of bytes) printable += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.';
  return `${offset.toString(16).padStart(8, '0')}  ${hex.join(' ')}  |${printable}|\n`;
}

/** A dump: its header line, then its rows. */
export function hexDump(bytes: Buffer, first: number, total: number): string {
  if (total === 0) return '[bytes 0-0 of 0]\n';
  const rows: string[] = [];
  for (let at = 0; at < bytes.length; at += BYTES_PER_ROW) rows.push(dumpRow(bytes.subarray(at, Math.min(bytes.length, at + BYTES_PER_ROW)), first + at));
  return bytesHeader(first, first + bytes.length - 1, total) + rows.join('');
}

// the hex columns of a row: 16 two-character cells with one space between, and two between the 8th and 9th
const HEX_COLUMNS = BYTES_PER_ROW * 3;

/** A dump read back to its bytes, where it starts and the file's size; undefined when the text is not such a dump. */
export function readHexDump(text: string): { first: number; total: number; bytes: Buffer } | undefined {
  const header = /^\[bytes (\d+)-(\d+) of (\d+)(?:; continue with offset \d+)?\]\n/.exec(text);
  if (!header) return undefined;
  const [first, last, total] = [Number(header[1]), Number(header[2]), Number(header[3])];
  const rows = text.slice(header[0].length).split('\n');
  if (rows.pop() !== '') return undefined;
  const cells: number[] = [];
  for (const row of rows) {
    const match = /^([0-9a-f]{8,}) {2}/.exec(row);
    if (!match || Number.parseInt(match[1]!, 16) !== first + cells.length) return undefined;
    const hex = row.slice(match[0].length, match[0].length + HEX_COLUMNS);
    for (const cell of hex.match(/[0-9a-f]{2}/g) ?? []) cells.push(Number.parseInt(cell, 16));
  }
  if (total === 0 ? cells.length !== 0 : cells.length !== last - first + 1) return undefined;
  return { first, total, bytes: Buffer.from(cells) };
}
