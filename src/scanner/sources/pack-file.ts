import { open, type FileHandle } from 'node:fs/promises';

/**
 * How much of a pack file one read brings in, and how many such windows are kept: a scan reads a pack's entries
 * nearly in the order they lie (git writes a commit's trees and blobs in the order of a walk of its tree, each delta
 * family together), so a few recent windows answer most reads. The pack was read whole before (~20 MB at 100,000
 * tools, and garbage until a full collection once let go).
 */
export const WINDOW_BYTES = 256 * 1024;
export const WINDOWS = 8;

/** A window of the pack: its bytes from `start`, or their read still in flight. */
interface Window {
  start: number;
  end: number;
  bytes: Buffer | Promise<Buffer>;
}

/**
 * One pack file, read a window at a time through an open descriptor (opened at the first read), each entry's bytes
 * bounded by the next entry's offset in the pack's index. `retire` lets it go: the descriptor closes once the reads
 * in flight are done.
 */
export class PackFile {
  private handle: Promise<{ file: FileHandle; size: number }> | undefined;
  // the same, once open: what `entryNow` reads from without waiting
  private opened: { file: FileHandle; size: number } | undefined;
  // every entry's offset, sorted: an entry ends where the next one starts (or at the pack's checksum); made at the
  // LINEAR_LOOKUPS + 1st look-up, the first ones each a pass over the index (a warm start reads a few entries of a
  // pack of 200,003: sorting them all cost it ~38 ms of CPU, a pass ~1.4 ms)
  private offsets: Float64Array | undefined;
  private lookups = 0;
  private windows: Window[] = [];
  private reading = 0;
  private retired = false;

  constructor(
    private readonly path: string,
    private readonly index: Buffer,
  ) {}

  /** How many windows were read from the file. */
  reads = 0;

  /** The bytes of the windows kept. */
  get heldBytes(): number {
    return this.windows.reduce((bytes, window) => bytes + window.end - window.start, 0);
  }

  /**
   * What `entry` gives, when a window read already holds it, without waiting (a scan's reads nearly always: each
   * `await` is a turn of the microtask queue, and waiting for each entry cost the reading of 100,000 tools ~4 s of
   * CPU); `undefined` otherwise.
   */
  entryNow(offset: number, most = Number.POSITIVE_INFINITY): Buffer | undefined {
    if (this.opened === undefined || this.retired) return undefined;
    const trailer = this.opened.size - 20;
    // out of bounds: `entry` says so
    if (!Number.isSafeInteger(offset) || offset < 12 || offset >= trailer) return undefined;
    const end = Math.min(this.nextOffset(offset, trailer), offset + most);
    const window = this.windowOver(offset, end);
    if (window === undefined || window.bytes instanceof Promise) return undefined;
    return window.bytes.subarray(offset - window.start, end - window.start);
  }

  /**
   * The bytes of the entry at `offset`, from its start to the next entry's, or only its first `most` bytes: a slice
   * of a window, which it keeps alive (whatever is kept of it is copied or made from it).
   */
  async entry(offset: number, most = Number.POSITIVE_INFINITY): Promise<Buffer> {
    this.reading++;
    try {
      const { file, size } = await this.open();
      const trailer = size - 20;
      if (!Number.isSafeInteger(offset) || offset < 12 || offset >= trailer) throw new Error(`corrupt pack: an object offset ${offset} outside the pack`);
      const end = Math.min(this.nextOffset(offset, trailer), offset + most);
      const window = this.windowOver(offset, end) ?? this.readWindow(file, offset, end, size);
      const bytes = window.bytes instanceof Promise ? await window.bytes : window.bytes;
      return bytes.subarray(offset - window.start, end - window.start);
    } finally {
      if (--this.reading === 0 && this.retired) void this.close();
    }
  }

  /** Lets the file go: no read after this one reuses its windows or its descriptor, which closes once no read is in flight. */
  retire(): void {
    this.retired = true;
    this.windows = [];
    if (this.reading === 0) void this.close();
  }

  private open(): Promise<{ file: FileHandle; size: number }> {
    if (this.retired) return Promise.reject(new Error(`pack ${this.path} was let go`));
    if (!this.handle) {
      const opening = open(this.path, 'r').then(async (file) => ({ file, size: (await file.stat()).size }));
      this.handle = opening;
      opening.then((opened) => {
        if (this.handle === opening) this.opened = opened;
      }, () => undefined);
      // a pack git deleted meanwhile: the next read (after the listing is refreshed) tries again
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
    }
    return this.handle;
  }

  private async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.opened = undefined;
    if (handle) await handle.then(({ file }) => file.close()).catch(() => undefined);
  }

  private windowOver(start: number, end: number): Window | undefined {
    for (let at = this.windows.length - 1; at >= 0; at--) {
      const window = this.windows[at]!;
      if (window.start <= start && end <= window.end) {
        // most recently used last
        if (at !== this.windows.length - 1) this.windows.push(...this.windows.splice(at, 1));
        return window;
      }
    }
    return undefined;
  }

  private readWindow(file: FileHandle, start: number, end: number, size: number): Window {
    const length = Math.min(size, Math.max(end, start + WINDOW_BYTES)) - start;
    this.reads++;
    const reading = readFully(file, Buffer.allocUnsafeSlow(length), start);
    const window: Window = { start, end: start + length, bytes: reading };
    reading.then(
      (read) => (window.bytes = read),
      () => (this.windows = this.windows.filter((kept) => kept !== window)),
    );
    // an entry bigger than a window is read for itself and not kept (its object, if a base, is kept by the base cache)
    if (length <= WINDOW_BYTES) {
      this.windows.push(window);
      if (this.windows.length > WINDOWS) this.windows.shift();
    }
    return window;
  }

  private nextOffset(offset: number, trailer: number): number {
    if (this.offsets === undefined && this.lookups++ < LINEAR_LOOKUPS) return Math.min(offsetAfter(this.index, offset), trailer);
    const offsets = (this.offsets ??= sortedOffsets(this.index));
    // the first offset past `offset`
    let low = 0;
    let high = offsets.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (offsets[middle]! <= offset) low = middle + 1;
      else high = middle;
    }
    return low < offsets.length ? Math.min(offsets[low]!, trailer) : trailer;
  }
}

async function readFully(file: FileHandle, bytes: Buffer, position: number): Promise<Buffer> {
  let filled = 0;
  while (filled < bytes.length) {
    const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, position + filled);
    if (bytesRead === 0) throw new Error(`corrupt pack: it ends at ${position + filled}, inside an object`);
    filled += bytesRead;
  }
  return bytes;
}

/** How many entries' ends are found by a pass over the index before its offsets are sorted once for all. */
export const LINEAR_LOOKUPS = 8;

/** Where a version-2 pack index's tables of offsets lie, checked against its length. */
function offsetTables(index: Buffer): { count: number; small: number; large: number } {
  const count = index.readUInt32BE(8 + 255 * 4);
  const small = 8 + 1024 + count * 24;
  const large = small + count * 4;
  if (index.length < large) throw new Error('corrupt pack index: shorter than its objects');
  return { count, small, large };
}

/** An offset from a version-2 pack index's 4-byte table (a large one from its table of 8-byte ones). */
function offsetAt(index: Buffer, large: number, value: number): number {
  if ((value & 0x80000000) === 0) return value;
  const position = large + (value & 0x7fffffff) * 8;
  if (position + 8 > index.length) throw new Error('corrupt pack index: a large offset outside its table');
  return Number(index.readBigUInt64BE(position));
}

/** The smallest offset a version-2 pack index names past `offset` (Infinity when none): one pass, nothing sorted. */
export function offsetAfter(index: Buffer, offset: number): number {
  const { count, small, large } = offsetTables(index);
  let next = Number.POSITIVE_INFINITY;
  for (let at = small, end = small + count * 4; at < end; at += 4) {
    const value = index.readUInt32BE(at);
    const candidate = (value & 0x80000000) === 0 ? value : offsetAt(index, large, value);
    if (candidate > offset && candidate < next) next = candidate;
  }
  return next;
}

/** Every offset a version-2 pack index names (those past 2 GiB from its table of 8-byte ones), sorted. */
export function sortedOffsets(index: Buffer): Float64Array {
  const { count, small, large } = offsetTables(index);
  const offsets = new Float64Array(count);
  for (let at = 0; at < count; at++) offsets[at] = offsetAt(index, large, index.readUInt32BE(small + at * 4));
  return offsets.sort();
}
