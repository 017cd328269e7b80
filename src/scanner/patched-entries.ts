import type { ScanEntry } from './build-index.js';
import type { CachedEntries, EntryList } from './cache-file.js';
import { entryTexts, type EntryText } from './entry-texts.js';

/**
 * The entries of a scan served from a cache file, in the listing's order, with the few that later rescans changed in
 * place: each unchanged one is its line, parsed when asked for. A rescan of a server over 100,000 tools so makes the
 * entries it changes and the few it looks at, where keying them all made and kept every definition (issue #18).
 */
export class PatchedEntries implements EntryList {
  constructor(
    private readonly base: CachedEntries,
    /** the entries changed since the file was written, by position */
    readonly changed: ReadonlyMap<number, ScanEntry> = new Map(),
  ) {}

  get length(): number {
    return this.base.length;
  }

  /** The entry at that position (the file's very object while anything holds it or its tool). */
  at(position: number): ScanEntry | undefined {
    return this.changed.get(position) ?? this.base.at(position);
  }

  /** The entry at that position, made without being kept when it is the file's and not made before. */
  peek(position: number): ScanEntry | undefined {
    return this.changed.get(position) ?? this.base.peek(position);
  }

  /** Where the entry's text lies: an unchanged one's line in the file, a changed one's wherever it was last written, if it was. */
  textAt(position: number): EntryText | undefined {
    const entry = this.changed.get(position);
    return entry ? entryTexts.get(entry) : this.base.textAt(position);
  }

  /** These entries with more changed in place. */
  with(changes: ReadonlyMap<number, ScanEntry>): PatchedEntries {
    return new PatchedEntries(this.base, new Map([...this.changed, ...changes]));
  }
}
