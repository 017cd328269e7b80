import { lstatSync, type Stats } from 'node:fs';

/**
 * How long before a snapshot began a file must have last changed for its stat to vouch for its content next time. A
 * file system stamps times by a coarse clock: two writes of the same size within one tick leave the same stat, so a
 * file changed around the time it was read is read again (git's "racily clean" entries), until a snapshot reads it
 * when it has been still for this long. A folder's listing is vouched for the same way by the folder's own stat.
 */
export const RACY_MS = 2000;

// device, inode, mode, size, modification and change times, and when the snapshot that read the file began
const FIELDS = 7;

/** A path's stat without following a link; undefined when it cannot be stated (a file that cannot be stated is read, and reading it says why). */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * What identifies the state of each of a list of files (or folders) without reading them, as git's index does, held
 * in one array of numbers: no object per file (10,000 stamps, and 100,000, are made at each rescan). Milliseconds as
 * doubles are enough: a change made after a read stamps a time later than that read began, and a file that changed
 * within `RACY_MS` before it was read never vouches for itself.
 */
export class FileStamps {
  private readonly values: Float64Array;

  constructor(
    readonly length: number,
    values?: Float64Array,
  ) {
    // a position never set is NaN, which equals nothing
    this.values = values ?? new Float64Array(length * FIELDS).fill(Number.NaN);
  }

  /** A table holding the same stamps, at the same positions (one copy of the numbers, not one per file). */
  clone(): FileStamps {
    return new FileStamps(this.length, this.values.slice());
  }

  /** Forgets the stamp at `position`: it vouches for nothing. */
  forget(position: number): void {
    this.values.fill(Number.NaN, position * FIELDS, (position + 1) * FIELDS);
  }

  /** Remembers `stats` at `position`, taken by the snapshot that began at `readAt`. */
  set(position: number, stats: Stats, readAt: number): void {
    const at = position * FIELDS;
    const values = this.values;
    values[at] = stats.dev;
    values[at + 1] = stats.ino;
    values[at + 2] = stats.mode;
    values[at + 3] = stats.size;
    values[at + 4] = stats.mtimeMs;
    values[at + 5] = stats.ctimeMs;
    values[at + 6] = readAt;
  }

  /** Copies the stamp at `from` of another table to `position`. */
  copy(position: number, other: FileStamps, from: number): void {
    for (let field = 0; field < FIELDS; field++) this.values[position * FIELDS + field] = other.values[from * FIELDS + field]!;
  }

  /** Whether `stats` is what was stamped at `position`, and the file had been still for `RACY_MS` when it was read. */
  vouches(position: number, stats: Stats): boolean {
    const at = position * FIELDS;
    const values = this.values;
    return (
      values[at + 4] === stats.mtimeMs &&
      values[at + 5] === stats.ctimeMs &&
      values[at + 3] === stats.size &&
      values[at + 1] === stats.ino &&
      values[at] === stats.dev &&
      values[at + 2] === stats.mode &&
      Math.max(stats.mtimeMs, stats.ctimeMs) < values[at + 6]! - RACY_MS
    );
  }
}
