import type { ScanEntry } from './build-index.js';
import type { CachedEntries, EntryList } from './cache-file.js';
import { entryTexts, type EntryText } from './entry-texts.js';

/**
 * The entries of a scan served from a cache file, in the listing's order, with those later rescans changed, added or
 * moved: each unchanged one is its line, parsed when asked for. A rescan of a server over 100,000 tools so makes the
 * entries it changes and the few it looks at, where keying them all made and kept every definition (issue #18).
 */
export class PatchedEntries implements EntryList {
  constructor(
    /** the cache file whose lines the unchanged entries are */
    readonly base: CachedEntries,
    /** the entries changed or added since the file was written, by position */
    readonly changed: ReadonlyMap<number, ScanEntry> = new Map(),
    /** by position, the file's line of the entry there (absent: the same position); -1 where `changed` has it */
    private readonly lines?: Int32Array,
  ) {}

  get length(): number {
    return this.lines?.length ?? this.base.length;
  }

  /** The file's line of the entry at that position as it is written there, or -1 for one changed or added since. */
  lineAt(position: number): number {
    if (this.changed.has(position)) return -1;
    return this.lines ? (this.lines[position] ?? -1) : position;
  }

  /** The entry at that position (the file's very object while anything holds it or its tool). */
  at(position: number): ScanEntry | undefined {
    return this.changed.get(position) ?? this.base.at(this.lineOf(position));
  }

  /** The entry at that position, made without being kept when it is the file's and not made before. */
  peek(position: number): ScanEntry | undefined {
    return this.changed.get(position) ?? this.base.peek(this.lineOf(position));
  }

  /** Where the entry's text lies: an unchanged one's line in the file, a changed one's wherever it was last written, if it was. */
  textAt(position: number): EntryText | undefined {
    const entry = this.changed.get(position);
    return entry ? entryTexts.get(entry) : this.base.textAt(this.lineOf(position));
  }

  /** The error for an entry whose line is not what its index says (the file is removed, as `CachedEntries.damaged` says). */
  damaged(position: number, reason: string): Error {
    return this.base.damaged(this.lineOf(position), reason);
  }

  /** These entries with more changed in place. */
  with(changes: ReadonlyMap<number, ScanEntry>): PatchedEntries {
    return new PatchedEntries(this.base, new Map([...this.changed, ...changes]), this.lines);
  }

  /**
   * The entries of a rescan that added, removed or changed some: `from[i]` is the position among these of the entry
   * now at `i`, unchanged, or -1 where `changes` holds the one there now (added, or changed).
   */
  moved(from: Int32Array, changes: ReadonlyMap<number, ScanEntry>): PatchedEntries {
    const lines = new Int32Array(from.length);
    const changed = new Map(changes);
    for (let position = 0; position < from.length; position++) {
      const previous = from[position]!;
      lines[position] = previous < 0 || changes.has(position) ? -1 : this.lineAt(previous);
      const entry = previous < 0 || changes.has(position) ? undefined : this.changed.get(previous);
      if (entry) changed.set(position, entry);
    }
    return new PatchedEntries(this.base, changed, lines);
  }

  // out of range (-1) for a position changed, where `changed` answers first
  private lineOf(position: number): number {
    return this.lines ? (this.lines[position] ?? -1) : position;
  }
}
