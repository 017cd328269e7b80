import { join } from 'node:path';
import { indexWith, letGo, markPatchedFrom, runLettingGo, type Diagnostic, type ToolIndex } from '../core/index.js';
import { buildIndexLettingGo, entryKind, type ScanEntry } from './build-index.js';
import { rescanCached } from './cached-rescan.js';
import type { EntryList } from './cache-file.js';
import { PatchedEntries } from './patched-entries.js';
import { IndexCache, type CacheWrite, type LoadedScan } from './index-cache.js';
import { streamEntries } from './stream-entries.js';
import { withHeapGrowingAtMost } from './full-collection.js';
import type { EntrySummary } from './entry-summary.js';
import { openSource, type RepositoryOptions } from './open-source.js';
import { patchIndex, type EntryChange } from './patch-index.js';
import { patchedStored, restoreIndex, storeIndexSteps, storeSummaries, type StoredIndex } from './stored-index.js';
import { readChanged, searchEntries } from './read-changed.js';
import { entryKey, ScanStopped, whileScanning, type PushHint, type RepositorySource, type Snapshot, type ToolEntry } from './sources/source.js';
import { MAX_DEFINITION_BYTES, type ParseOptions } from './yaml-mapping.js';
import { isUnread } from './unread-entry.js';

/** Holds one repository's index (tools, toolsets, skills) and keeps it current: unchanged commit → same index; new commit → re-parse only changed folders. */
export class Scanner {
  readonly source: RepositorySource;
  private readonly cache: IndexCache;
  private index: ToolIndex | undefined;
  /** the entries of the last index, keyed by folder: at a warm start, made only when a new commit is scanned */
  private entries = new Map<string, ScanEntry>();
  /** the same entries in the listing's order, and the commit they are of: what a tree comparison starts from */
  private ordered: readonly ScanEntry[] | undefined;
  /** whether one of those entries is of a file that could not be read (a rescan then lists every entry) */
  private orderedUnread = false;
  private entriesCommit: string | undefined;
  /** the entries of an index served from a cache file, in the listing's order, made when read: keyed only when a rescan needs them all */
  private unkeyed: PatchedEntries | undefined;
  /** whether one of those is of a file that could not be read */
  private unkeyedUnread = false;
  /** the scan cache's stored index of the index served from it, and of its patches since (the same: a patch changes no position, name or alias) */
  private stored: StoredIndex | undefined;
  private pendingSave: Promise<void> = Promise.resolve();
  private scanning: Promise<ToolIndex> | undefined;
  private readonly parseOptions: ParseOptions;
  private readonly judge: RepositoryOptions['judge'];

  constructor(options: RepositoryOptions) {
    const { source, workDir } = openSource(options);
    this.source = source;
    const maxBytes = options.maxDefinitionBytes ?? MAX_DEFINITION_BYTES;
    // a scan made under another size limit would keep its verdicts on sizes: not reused
    this.cache = new IndexCache(join(workDir, 'index'), maxBytes === MAX_DEFINITION_BYTES ? '' : `max-bytes=${maxBytes}`);
    this.parseOptions = { maxBytes };
    this.judge = options.judge;
  }

  /** The last index built, if any. */
  get current(): ToolIndex | undefined {
    return this.index;
  }

  /**
   * Scans the repository; concurrent callers share one scan. Throws `ScanError` only when nothing can be served.
   * `pushed` (what a signed push webhook said) lets a remote source fetch the new commit beside its head check.
   * `signal` stops the scan this call begins (not one under way that it joins): a remote's requests are dropped, and
   * once the source has answered, nothing more is read or written (a server stopped while it starts: review Z17, Z17-6).
   */
  scan(pushed?: PushHint, signal?: AbortSignal): Promise<ToolIndex> {
    // a first scan with nothing in memory may be a clone and a cold scan, which hold much and make much garbage beside
    // it: V8's old generation is let grow less meanwhile (at 100,000 tools, 341-354 → 275 MB peak RSS, ~10% more CPU)
    const first = this.index === undefined && this.entries.size === 0 && this.unkeyed === undefined;
    if (this.scanning) return this.scanning;
    const during = whileScanning(signal);
    this.scanning = (first ? withHeapGrowingAtMost(() => this.scanNow(pushed, during.signal)) : this.scanNow(pushed, during.signal)).finally(() => {
      during.done();
      this.scanning = undefined;
    });
    return this.scanning;
  }

  /** Resolves once the last scan is written to the disk cache (and what its source keeps of it). */
  async flush(): Promise<void> {
    await this.pendingSave;
    await this.source.flush?.();
  }

  private async scanNow(pushed: PushHint | undefined, signal?: AbortSignal): Promise<ToolIndex> {
    const snapshot = await this.source.snapshot(pushed, signal);
    signal?.throwIfAborted();
    // what under policies/ is never read, looked at each scan once its entries are read (a clone missing its trees
    // fails there first, as it always did), kept out of the cache: it is the listing's, not an entry's
    const strays = async (): Promise<Diagnostic[]> => (await snapshot.strays?.()) ?? [];
    // kept: a stale mark says since when (its first failed poll), and a poll that changes nothing returns the same index
    if (this.index?.commit === snapshot.commit) return (this.index = this.withStale(this.index, snapshot, await strays()));
    const cached = await this.cache.load(snapshot.commit);
    let index: ToolIndex;
    // at a start onto a commit the cache does not hold, the latest scan's index it patched
    let patchedFrom: ToolIndex | undefined;
    if (cached) {
      // parsed when read: a call by name from a warm cache parses one entry; keyed only when a later scan needs them
      const entries = new PatchedEntries(cached.entries);
      this.serveUnkeyed(entries, false, snapshot.commit);
      const header = { source: this.source.label, commit: snapshot.commit, scanned_at: cached.scanned_at };
      const restored = cached.index && restoreIndex(cached.index, entries, header);
      this.stored = restored ? cached.index : undefined;
      index = restored ?? (await buildIndexLettingGo(header.source, header.commit, cached.entries.all(), header.scanned_at, (entry) => snapshot.read(entry), this.index, snapshot.history));
    } else {
      // a start onto a commit the cache does not hold: the latest scan it holds is patched as a server's rescan patches it
      const latest = this.index === undefined && this.unkeyed === undefined && this.entries.size === 0 ? await this.serveLatest(snapshot.diffBase) : undefined;
      const previous = this.index ?? latest;
      const scannedAt = new Date().toISOString();
      const state = this.unkeyed && !this.unkeyedUnread && this.stored && this.entriesCommit ? { entries: this.unkeyed, stored: this.stored, commit: this.entriesCommit, index: previous } : undefined;
      const rescanned = state && (await rescanCached(state, snapshot, this.source.label, scannedAt, this.parseOptions));
      if (rescanned) {
        index = rescanned.index;
        patchedFrom = latest;
        this.stored = rescanned.stored;
        // a file that could not be read this time is read again next time, not remembered as broken
        if (!rescanned.unread) this.saveLater(snapshot.commit, scannedAt, index, rescanned.entries, rescanned.stored);
        this.serveUnkeyed(rescanned.entries, rescanned.unread, snapshot.commit);
      } else {
        const streamed = await this.scanEvery(snapshot, scannedAt, previous);
        if (streamed) {
          this.index = this.withStale(streamed, snapshot, await strays());
          return this.index;
        }
        index = this.index!;
      }
    }
    this.index = this.withStale(index, snapshot, await strays());
    // what was kept for that scan (its search index) is updated with the tools changed rather than made again
    if (patchedFrom) markPatchedFrom(this.index, patchedFrom);
    return this.index;
  }

  /**
   * The scan when the cached index cannot be patched: every entry listed and compared by oid with the last scan's (a
   * cache file's entries all made and keyed first), or, with no earlier entries, a cold scan streamed into the cache
   * (returned). Otherwise leaves the index built in `this.index`. `previous` is the index served before (at a start, the
   * scan the cache held): a name a newcomer claims too stays with the tool that served it.
   */
  private async scanEvery(snapshot: Snapshot, scannedAt: string, previous: ToolIndex | undefined): Promise<ToolIndex | undefined> {
    if (this.unkeyed) {
      // a cache file holds its entries in its commit's listing order: what a tree comparison starts from, as after a
      // scan held in memory (a cold scan now serves its index from the file it wrote)
      const ordered = await entriesLettingGo(this.unkeyed);
      this.entries = keyedOf(ordered);
      this.ordered = ordered;
      this.orderedUnread = ordered.some(isUnread);
      this.unkeyed = undefined;
    }
    if (this.entries.size === 0) {
      const streamed = await this.streamScan(snapshot);
      if (streamed) return streamed;
    }
    const { entries, keyed, changes, unread } = await this.readEntries(snapshot);
    // a few definitions changed in place: the previous index with them swapped in, if that is all they change
    const patched = this.index && changes ? patchIndex(this.index, changes, snapshot.commit, scannedAt) : undefined;
    const index = patched ?? (await buildIndexLettingGo(this.source.label, snapshot.commit, entries, scannedAt, (entry) => snapshot.read(entry), previous, snapshot.history));
    // a patch keeps every position, name and alias: the stored index of the one it patched
    const stored = patched && this.stored ? patchedStored(this.stored, patched) : undefined;
    this.stored = stored;
    // a file that could not be read this time is read again next time, not remembered as broken
    if (!unread) this.saveLater(snapshot.commit, scannedAt, index, entries, stored);
    this.entries = keyed(this.entries);
    this.ordered = entries;
    this.orderedUnread = unread;
    this.entriesCommit = snapshot.commit;
    this.index = index;
    return undefined;
  }

  /**
   * At a start onto a commit the cache does not hold: the scan of `base` (the commit the source can say what changed
   * since) or else the latest scan it holds, served from its file as a warm start serves it, for a rescan to patch; its
   * index, if its stored index fits. Without a stored index, its entries keyed.
   */
  private async serveLatest(base: string | undefined): Promise<ToolIndex | undefined> {
    // a folder put back as it was at an older scan is served from that scan's file, which is then not written again
    // and so not the latest: the next start after a change still patches it
    const latest = (base === undefined ? undefined : await this.cache.load(base)) ?? (await this.cache.latest());
    if (!latest) return undefined;
    const entries = new PatchedEntries(latest.entries);
    const restored = latest.index && restoreIndex(latest.index, entries, latest);
    if (!restored) {
      this.entries = await keyedLettingGo(latest.entries);
      this.entriesCommit = latest.commit;
      return undefined;
    }
    this.serveUnkeyed(entries, false, latest.commit);
    this.stored = latest.index;
    return restored;
  }

  // entries served from a cache file, not keyed
  private serveUnkeyed(entries: PatchedEntries, unread: boolean, commit: string): void {
    this.unkeyed = entries;
    this.unkeyedUnread = unread;
    this.entries.clear();
    this.ordered = undefined;
    this.entriesCommit = commit;
  }

  // the index is usable now; the disk copy follows without delaying the answer: from the next turn of the event loop on
  // (its first slice, ~10 ms, ran before the caller had the index when it began in this one)
  private saveLater(commit: string, scannedAt: string, built: ToolIndex, entries: readonly ScanEntry[] | PatchedEntries, stored: StoredIndex | undefined): void {
    const storing = async (): Promise<StoredIndex> => stored ?? (await runLettingGo(storeIndexSteps(built, Array.isArray(entries) ? entries : await entriesLettingGo(entries))));
    this.pendingSave = this.pendingSave
      .then(letGo)
      .then(async () => this.cache.save({ source: this.source.label, commit, scanned_at: scannedAt, entries, index: await storing() }))
      .catch((error: unknown) => process.emitWarning(`index cache not written: ${String(error)}`));
  }

  /**
   * A scan with no earlier entries to reuse (a cold start): each entry's line is written to the cache file as it is
   * parsed, only its summary kept, and the index assembled from the summaries is served from that file as a warm start
   * serves it (each tool read back when asked for). Undefined when the cache cannot be written: the caller then reads
   * every entry into memory.
   */
  private async streamScan(snapshot: Snapshot): Promise<ToolIndex | undefined> {
    // let go of once read (set to undefined below): its entry objects are not held while the index is assembled
    // (the summaries keep their folder and oid strings; ~5.6 MB at 100,000 tools)
    let listing: readonly ToolEntry[] | undefined = await snapshot.listEntries();
    const entries = listing.length;
    const scannedAt = new Date().toISOString();
    const header = { source: this.source.label, commit: snapshot.commit, scanned_at: scannedAt };
    let write: CacheWrite;
    try {
      write = await this.cache.begin({ ...header, entries });
    } catch (error) {
      process.emitWarning(`index cache not written: ${String(error)}`);
      return undefined;
    }
    let loaded: LoadedScan & { index: StoredIndex };
    let summaries: EntrySummary[];
    let readFailures: unknown[];
    try {
      const streamed = streamEntries(snapshot, listing, this.parseOptions, write);
      listing = undefined;
      ({ summaries, readFailures } = await streamed);
      // one unreadable object is that file's problem; when none of several can be read, the source is at fault
      if (readFailures.length > 1 && readFailures.length === entries) throw new ReadFailure(readFailures[0]);
      const stored = await storeSummaries(header.source, header.commit, summaries, scannedAt, (entry) => snapshot.read(entry), undefined, snapshot.history);
      // a file that could not be read this time is read again next time, not remembered as broken
      loaded = await write.finish(stored, readFailures.length === 0);
    } catch (error) {
      await write.abandon();
      if (error instanceof ReadFailure) throw error.cause;
      if (error instanceof ScanStopped) throw error;
      process.emitWarning(`index cache not written: ${String(error)}`);
      return undefined;
    }
    // the toolsets, skills and policies the summaries hold whole are the entries a rescan keeps, as after a scan held in memory
    summaries.forEach((summary, position) => {
      if (entryKind(summary) !== 'tool') loaded.entries.adopt(position, summary as ScanEntry);
    });
    this.serveUnkeyed(new PatchedEntries(loaded.entries), readFailures.length > 0, snapshot.commit);
    const restored = restoreIndex(loaded.index, loaded.entries, header);
    this.stored = restored ? loaded.index : undefined;
    return restored ?? (await buildIndexLettingGo(header.source, header.commit, loaded.entries.all(), scannedAt, (entry) => snapshot.read(entry), undefined, snapshot.history));
  }

  /**
   * The entries at the snapshot, re-reading only folders whose oid changed; keyed for the next scan; and what
   * changed, when the set of folders is the same. When the source can say what changed since the entries' commit
   * (git: trees compared from the top) and that is definitions changed in place, only those are looked at;
   * otherwise every entry is listed and compared by oid.
   */
  private async readEntries(snapshot: Snapshot): Promise<ReadEntries> {
    const ordered = this.ordered;
    // entries that could not be read last time are read again: only a full listing finds them
    const changedOnly = ordered && ordered.length === this.entries.size && !this.orderedUnread ? await this.readChangedOnly(snapshot, ordered) : undefined;
    return changedOnly ?? (await this.readListed(snapshot));
  }

  // the entries at the snapshot when the tree comparison finds only entries changed in place (none unread before)
  private async readChangedOnly(snapshot: Snapshot, ordered: readonly ScanEntry[]): Promise<ReadEntries | undefined> {
    if (!this.entriesCommit || !snapshot.diffEntries) return undefined;
    const diff = await snapshot.diffEntries(this.entriesCommit);
    if (!diff || diff.added.length > 0 || diff.removed.length > 0) return undefined;
    const positions: number[] = [];
    for (const entry of diff.changed) {
      const { position, found } = searchEntries(ordered.length, (at) => ordered[at]!, entry);
      if (!found) return undefined;
      positions.push(position);
    }
    const results: Array<ScanEntry | Promise<ScanEntry>> = ordered.slice();
    await readChanged(snapshot, positions, (at) => diff.changed[at]!, results, this.parseOptions);
    const changes = positions.map((position) => ({ before: ordered[position]!, after: results[position] as ScanEntry }));
    const keyed = (entries: Map<string, ScanEntry>): Map<string, ScanEntry> => {
      for (const { after } of changes) entries.set(entryKey(after), after);
      return entries;
    };
    // the others are the last scan's, none of them unread
    return { entries: results as ScanEntry[], keyed, changes, unread: changes.some(({ after }) => isUnread(after)) };
  }

  private async readListed(snapshot: Snapshot): Promise<ReadEntries> {
    const listing = await snapshot.listEntries();
    const keys: string[] = new Array(listing.length);
    // every promise stored here settles with an entry, never rejects: a file's failure is its own diagnostic
    const results: Array<ScanEntry | Promise<ScanEntry>> = new Array(listing.length);
    const changed: number[] = [];
    let known = 0;
    for (let position = 0; position < listing.length; position++) {
      if (position % STEP === STEP - 1) await letGo();
      const entry = listing[position]!;
      const key = entryKey(entry);
      keys[position] = key;
      const previous = this.entries.get(key);
      if (previous) known++;
      if (previous?.oid === entry.oid) results[position] = previous;
      else changed.push(position);
    }
    await readChanged(snapshot, changed, (at) => listing[changed[at]!]!, results, this.parseOptions);
    const keyed = new Map<string, ScanEntry>();
    let unread = false;
    for (let position = 0; position < results.length; position++) {
      if (position % STEP === STEP - 1) await letGo();
      keyed.set(keys[position]!, results[position] as ScanEntry);
      unread ||= isUnread(results[position] as ScanEntry);
    }
    const sameFolders = known === listing.length && this.entries.size === listing.length;
    const changes = sameFolders ? changed.map((position) => ({ before: this.entries.get(keys[position]!)!, after: results[position] as ScanEntry })) : undefined;
    return { entries: results as ScanEntry[], keyed: () => keyed, changes, unread };
  }

  // a copy, not a spread: a spread reads `tools`, which makes and keeps every definition of an index served from the
  // scan cache (issue #18: a remote out of reach cost ~170 MB at 100,000 tools)
  private withStale(index: ToolIndex, snapshot: Snapshot, strays: readonly Diagnostic[]): ToolIndex {
    const marked = this.staleMarked(withStrays(index, strays), snapshot);
    return this.judge ? this.judge(marked) : marked;
  }

  private staleMarked(index: ToolIndex, snapshot: Snapshot): ToolIndex {
    if (snapshot.stale) {
      if (index.stale?.reason === snapshot.stale.reason) return index;
      return indexWith(index, { stale: { ...snapshot.stale, since: index.stale?.since ?? snapshot.stale.since } });
    }
    return index.stale ? indexWith(index, { stale: undefined }) : index;
  }
}

/** `index` with `strays` (POLICY_NOT_READ, ENTRY_FOLDER_NOT_READ) as its errors and warnings of that code, in place of any it had; itself when they are the same. */
function withStrays(index: ToolIndex, strays: readonly Diagnostic[]): ToolIndex {
  const isStray = (diagnostic: Diagnostic): boolean => diagnostic.code === 'POLICY_NOT_READ' || diagnostic.code === 'ENTRY_FOLDER_NOT_READ';
  const had = [...index.errors, ...index.warnings].filter(isStray);
  const key = (diagnostic: Diagnostic): string => `${diagnostic.severity}\0${diagnostic.file}\0${diagnostic.message}`;
  const seen = new Set(had.map(key));
  if (had.length === strays.length && strays.every((diagnostic) => seen.has(key(diagnostic)))) return index;
  return indexWith(index, {
    errors: [...index.errors.filter((diagnostic) => !isStray(diagnostic)), ...strays.filter((diagnostic) => diagnostic.severity === 'error')],
    warnings: [...index.warnings.filter((diagnostic) => !isStray(diagnostic)), ...strays.filter((diagnostic) => diagnostic.severity !== 'error')],
  });
}

// the source failed every read: thrown past the cache write's own failures
class ReadFailure {
  constructor(readonly cause: unknown) {}
}

/** What a rescan read: the entries in order; how to key them for the next (given the last scan's keyed entries); what changed in place; whether a file could not be read. */
interface ReadEntries {
  entries: readonly ScanEntry[];
  keyed: (previous: Map<string, ScanEntry>) => Map<string, ScanEntry>;
  changes: EntryChange[] | undefined;
  unread: boolean;
}

// entries handled between two turns of the event loop in a rescan's loops over every entry
const STEP = 2000;

async function keyedLettingGo(entries: EntryList): Promise<Map<string, ScanEntry>> {
  return keyedOf(await entriesLettingGo(entries));
}

async function entriesLettingGo(entries: EntryList): Promise<ScanEntry[]> {
  const all: ScanEntry[] = new Array(entries.length);
  for (let position = 0; position < entries.length; position++) {
    if (position % STEP === STEP - 1) await letGo();
    all[position] = entries.at(position)!;
  }
  return all;
}

function keyedOf(entries: readonly ScanEntry[]): Map<string, ScanEntry> {
  const keyed = new Map<string, ScanEntry>();
  for (const entry of entries) keyed.set(entryKey(entry), entry);
  return keyed;
}

/** Scans a repository once (the CLI's and the benchmarks' entry point) and waits for the cache write. */
export async function scanOnce(repo: string, options: Omit<RepositoryOptions, 'repo'> = {}): Promise<ToolIndex> {
  const scanner = new Scanner({ repo, ...options });
  const index = await scanner.scan();
  await scanner.flush();
  return index;
}
