import { open as openDescriptor, readSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ScanEntry } from './build-index.js';
import type { CacheHeader } from './cache-file.js';
import { entryTexts, OpenFile } from './entry-texts.js';
import type { StoredIndex } from './stored-index.js';

const openAsync = promisify(openDescriptor);

const NEWLINE = 0x0a;

/** The last line of a cache file: where its stored index begins, as 16 hex digits, and a newline. */
export const TRAILER_BYTES = 17;

// entries written per slice, with the event loop let go between slices: serialising 100,000 entries (tens of MB)
// in one go would hold every request for a large part of a second
const SLICE = 500;

/**
 * Writes the header, then each entry on a line of its own, ASCII only (every other character as a JSON `\u` escape,
 * so no line holds a raw newline), a slice of entries at a time, then the stored index, the entries' line lengths and
 * a trailer saying where the index begins (`TRAILER_BYTES`: 16 hex digits and a newline). An entry read from a cache
 * file or written before is copied from that file's line; afterwards each entry's text is this file's line. Only a
 * slice's texts are held at once: with the lengths before the entries (layout 4), every text had to be made before
 * the first was written (~130 MB at 100,000 tools, the peak of a cold scan's write).
 */
export async function writeCacheFile(path: string, header: CacheHeader, index: StoredIndex | undefined, entries: readonly ScanEntry[]): Promise<void> {
  const lengths: number[] = new Array(entries.length);
  // a file at this path may be one whose lines are being copied: it is unlinked (still read through its descriptor), never overwritten
  await rm(path, { force: true });
  const handle = await open(path, 'wx');
  const head = `${asciiJson(header)}\n`;
  let at = head.length;
  try {
    await handle.write(head);
    for (let start = 0; start < entries.length; start += SLICE) {
      const lines: Uint8Array[] = [];
      const texts = textsOf(entries, start, Math.min(entries.length, start + SLICE));
      for (let offset = 0; offset < texts.length; offset++) {
        lines.push(texts[offset]!, LINE_END);
        lengths[start + offset] = texts[offset]!.length;
        at += texts[offset]!.length + 1;
      }
      await handle.writev(lines);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await handle.write(`${asciiJson(index ?? null)}\n${JSON.stringify(lengths.map((length) => length + 1))}\n${at.toString(16).padStart(TRAILER_BYTES - 1, '0')}\n`);
  } finally {
    await handle.close();
  }
  // each entry's text is now this file's line (the files they were copied from can be closed)
  let written: OpenFile;
  try {
    written = new OpenFile(await openAsync(path, 'r'));
  } catch {
    return;
  }
  at = head.length;
  entries.forEach((entry, position) => {
    entryTexts.set(entry, { file: written, start: at, length: lengths[position]! });
    at += lengths[position]! + 1;
  });
}

// the texts of entries [from, to): those read from no file made now, the others read back from their files, a run of lines that
// follow one another in one file in one read; a line that does not read back whole is made again from its entry
function textsOf(entries: readonly ScanEntry[], from: number, to: number): Uint8Array[] {
  const texts: Uint8Array[] = [];
  for (let position = from; position < to; ) {
    const first = entryTexts.get(entries[position]!);
    if (!first) {
      texts.push(Buffer.from(asciiJson(entries[position]!), 'latin1'));
      position += 1;
      continue;
    }
    let end = position + 1;
    let bytes = first.length + 1;
    for (let next = entryTexts.get(entries[end]!); end < to && next?.file === first.file && next.start === first.start + bytes; next = entryTexts.get(entries[end]!)) {
      bytes += next.length + 1;
      end += 1;
    }
    const run = Buffer.allocUnsafe(bytes);
    let read = 0;
    try {
      // at most a slice's lines (~650 KB at 100,000 tools), mostly from the page cache: short enough to read here
      read = readSync(first.file.descriptor, run, 0, bytes, first.start);
    } catch {
      // made again below
    }
    for (let offset = 0; position < end; position++) {
      const { length } = entryTexts.get(entries[position]!)!;
      const whole = offset + length < read && run[offset + length] === NEWLINE;
      texts.push(whole ? run.subarray(offset, offset + length) : Buffer.from(asciiJson(entries[position]!), 'latin1'));
      offset += length + 1;
    }
  }
  return texts;
}

const LINE_END = Buffer.from('\n');

// every character beyond ASCII, as JSON.stringify leaves them
const NON_ASCII = /[\u0080-\uffff]/g;

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_ASCII, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

