import { lstatSync, type BigIntStats } from 'node:fs';

/**
 * How long before a snapshot began a file must have last changed for its stat to vouch for its content next time. A
 * file system stamps times by a coarse clock: two writes of the same size within one tick leave the same stat, so a
 * file changed around the time it was read is read again (git's "racily clean" entries), until a snapshot reads it
 * when it has been still for this long. A folder's listing is vouched for the same way by the folder's own stat.
 * Git compares with its index file's own modification time; a folder source's record is kept in the cache, maybe on
 * another file system, so the reference is the clock when the snapshot began, and the margin covers the coarsest
 * common tick (FAT's 2 s) and a file system's clock a little behind this one's.
 */
export const RACY_MS = 2000;

const RACY_NS = BigInt(RACY_MS) * 1_000_000n;

// device, inode, mode, size, modification and change times (ns), and when the snapshot that read the file began (ns)
const FIELDS = 7;

// the read time of a stamp never set or forgotten: earlier than any file's times, so it vouches for nothing
const NEVER = -(2n ** 63n);

/** A path's stat (times in nanoseconds) without following a link; undefined when it cannot be stated (a file that cannot be stated is read, and reading it says why). */
export function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false, bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * What identifies the state of each of a list of files (or folders) without reading them, as git's index does, held
 * in one array of 64-bit numbers: no object per file (10,000 stamps, and 100,000, are made at each rescan), and times
 * to the nanosecond as the file system gives them. A change made after a read stamps a time later than that read
 * began, and a file that changed within `RACY_MS` before it was read never vouches for itself.
 */
export class FileStamps {
  /** the numbers, `FIELDS` per position: what a folder source's kept record stores */
  readonly values: BigInt64Array;

  constructor(
    readonly length: number,
    values?: BigInt64Array,
  ) {
    if (values && values.length !== length * FIELDS) throw new RangeError(`${values.length} stamp values for ${length} positions`);
    this.values = values ?? new BigInt64Array(length * FIELDS).fill(NEVER);
  }

  /** How many numbers `length` stamps hold. */
  static valuesFor(length: number): number {
    return length * FIELDS;
  }

  /** A table holding the same stamps, at the same positions (one copy of the numbers, not one per file). */
  clone(): FileStamps {
    return new FileStamps(this.length, this.values.slice());
  }

  /** Forgets the stamp at `position`: it vouches for nothing. */
  forget(position: number): void {
    this.values.fill(NEVER, position * FIELDS, (position + 1) * FIELDS);
  }

  /** Remembers `stats` at `position`, taken by the snapshot that began at `readAtMs` (milliseconds since the epoch). */
  set(position: number, stats: BigIntStats, readAtMs: number): void {
    const at = position * FIELDS;
    const values = this.values;
    values[at] = stats.dev;
    values[at + 1] = stats.ino;
    values[at + 2] = stats.mode;
    values[at + 3] = stats.size;
    values[at + 4] = stats.mtimeNs;
    values[at + 5] = stats.ctimeNs;
    values[at + 6] = BigInt(Math.floor(readAtMs)) * 1_000_000n;
  }

  /** Copies the stamp at `from` of another table to `position`. */
  copy(position: number, other: FileStamps, from: number): void {
    this.values.set(other.values.subarray(from * FIELDS, (from + 1) * FIELDS), position * FIELDS);
  }

  /** Whether `stats` is what was stamped at `position`, and the file had been still for `RACY_MS` when it was read. */
  vouches(position: number, stats: BigIntStats): boolean {
    const at = position * FIELDS;
    const values = this.values;
    const modified = stats.mtimeNs;
    const changed = stats.ctimeNs;
    return (
      values[at + 4] === modified &&
      values[at + 5] === changed &&
      values[at + 3] === stats.size &&
      values[at + 1] === stats.ino &&
      values[at] === stats.dev &&
      values[at + 2] === stats.mode &&
      (modified > changed ? modified : changed) < values[at + 6]! - RACY_NS
    );
  }
}
