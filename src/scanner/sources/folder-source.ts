import { createHash } from 'node:crypto';
import { existsSync, type BigIntStats, type Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, entryPath, letGo, type Diagnostic, type EntryKind } from '../../core/index.js';
import { ScanError } from '../scan-error.js';
import { FileStamps, statOrUndefined } from './file-stamps.js';
import { readFolderRecord, writeFolderRecord, type FolderRecord } from './folder-record.js';
import { blobOid, readBounded } from './read-bounded.js';
import { missingDefinition } from './missing-definition.js';
import { rootItemsToCheck, rootPolicyStrays, strayPolicies } from './stray-policies.js';
import { definitionPath, entryKey, stoppedBy, throwIfStopped, type EntryDiff, type PushHint, type RepositorySource, type Snapshot, type ToolEntry } from './source.js';

// files read at once by a snapshot
const READ_CONCURRENCY = 16;

// stats taken between two turns of the event loop
const STAT_STEP = 500;

// entries' lines hashed between two turns of the event loop
const DIGEST_STEP = 10_000;

/** A file to be read at a position of the entries, and its stat before it was read (none when it could not be taken). */
interface ToRead {
  position: number;
  stats: BigIntStats | undefined;
}

/**
 * Reads `tools/*\/TOOL.hdlp`, `toolsets/*\/TOOLSET.hdlp`, `skills/*\/SKILL.md` and `policies/*.hdlp` from a plain folder
 * (the working tree, not git). Given a path to keep its record at (`keptAt`, in the source's cache folder), what a
 * snapshot saw is kept there, so that a process started later reads only the files whose stat changed since, as a
 * running one does: without it, a restart read and hashed every file to find its commit.
 */
export class FolderSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly root: string;
  /** each definition file last read or vouched for by its stat: its oid (not its bytes: 130 MB at 100,000 tools) is its entry's */
  private seen: FolderRecord | undefined;
  /** whether the kept record was looked for (at the first snapshot) */
  private recordRead = false;
  /** each kind's folders (in ENTRY_KINDS order) as last listed, and the stat of its folder then */
  private listings: Array<readonly string[] | undefined> = [];
  private listingStamps = new FileStamps(ENTRY_KINDS.length);
  /** whether a kind's folder was listed again during this snapshot */
  private relisted = false;
  /** the record's write under way, and whether a newer snapshot is to be written after it */
  private keeping: Promise<void> | undefined;
  private unkept = false;

  constructor(
    root: string,
    private readonly maxBytes: number,
    private readonly keptAt?: string,
  ) {
    this.root = resolve(root);
    this.label = this.root;
    this.cacheKey = FolderSource.cacheKeyOf(this.root);
  }

  /** What the scan cache of the folder at `root` is keyed by. */
  static cacheKeyOf(root: string): string {
    return `folder:${resolve(root)}`;
  }

  /** `signal` stops it between two files (its stats, its reads) and so do the snapshot's reads: nothing of it is kept */
  async snapshot(_pushed?: PushHint, signal?: AbortSignal): Promise<Snapshot> {
    const started = Date.now();
    if (!this.recordRead) await this.readRecord();
    const seen = this.seen;
    this.relisted = false;
    const lists: Array<readonly string[]> = [];
    for (const [at, kind] of ENTRY_KINDS.entries()) lists.push(await this.listed(at, kind, started));
    // the same folders as last time: the entries are last time's, position for position
    const same = seen !== undefined && lists.every((folders, at) => sameFolders(folders, seen.lists[at]!));
    const entries = same ? seen.entries.slice() : entriesOf(lists);
    // the same folders: last time's stamps, those of the files read again replaced
    const stamps = same ? seen.stamps.clone() : new FileStamps(entries.length);
    const before = same ? undefined : positionsBefore(entries, seen);
    const toRead = await this.passOver(entries, before, seen, stamps, signal);
    const contents = await this.readAll(entries, toRead, stamps, started, signal);
    // nothing read changed: the commit is the last snapshot's, not hashed again (~7 ms at 10,000 entries, each start)
    const unchanged = same && toRead.every(({ position }) => entries[position]!.oid === seen.entries[position]!.oid);
    const commit = unchanged ? seen.commit : `folder:${await digestOf(entries)}`;
    this.seen = { commit, lists, listingStamps: this.keptListingStamps(), entries, stamps };
    if (!same || toRead.length > 0 || this.relisted) this.keep();
    // what changed since the last snapshot: the entries read again whose oid differs, and those added and removed
    const diff: EntryDiff | undefined = seen === undefined ? undefined : same ? { changed: toRead.filter(({ position }) => entries[position]!.oid !== seen.entries[position]!.oid).map(({ position }) => entries[position]!), added: [], removed: [] } : movedSince(entries, before!, seen);
    const diffSince = seen?.commit;
    return stoppedBy({
      commit,
      listEntries: async () => entries,
      strays: async () => {
        // a root that cannot be listed was refused by the listing above, or is gone since: then nothing is meant as policies
        const root = await readdir(this.root, { withFileTypes: true }).catch(() => [] as Dirent[]);
        const listFolder = async (path: readonly string[]): Promise<Array<{ name: string; folder: boolean }>> =>
          (await readdir(join(this.root, ...path), { withFileTypes: true })).map((item) => ({ name: item.name, folder: item.isDirectory() }));
        const checked = await rootItemsToCheck(root, (item) => item.isDirectory(), listFolder);
        const atRoot = rootPolicyStrays(checked.map((item) => ({ name: item.name, type: item.isSymbolicLink() ? 'symlink' : !item.isDirectory() ? 'file' : isCheckout(join(this.root, item.name)) ? 'submodule' : 'folder' })));
        const items = await readdir(join(this.root, ENTRY_LAYOUT.policy.folder), { withFileTypes: true }).catch(() => [] as Dirent[]);
        return [...atRoot, ...strayPolicies(items.map((item) => ({ name: item.name, folder: item.isDirectory() })))];
      },
      diffEntries: async (since) => (diff && since === diffSince ? diff : undefined),
      ...(diff && diffSince ? { diffBase: diffSince } : {}),
      read: async (entry) => {
        const kind = entry.kind ?? 'tool';
        // a file passed over by its stat is read when asked for (a scanner whose last scan did not keep it)
        const content = contents.get(entryKey(entry)) ?? (await this.readDefinition(kind, entry.folder));
        if (!Buffer.isBuffer(content)) return content;
        if (blobOid(content) !== entry.oid) throw new Error(`${definitionPath(entry.folder, kind)} changed while it was scanned`);
        return { ...(kind === 'tool' ? {} : { kind }), path: definitionPath(entry.folder, kind), folder: entry.folder, oid: entry.oid, content };
      },
    }, signal);
  }

  /** Resolves once what the last snapshot saw is kept on disk (a write that failed only warns: the next start reads more). */
  async flush(): Promise<void> {
    while (this.keeping) await this.keeping;
  }

  // at the first snapshot: what a snapshot of an earlier process saw, if it was kept for this folder and size limit
  private async readRecord(): Promise<void> {
    this.recordRead = true;
    if (!this.keptAt || this.seen) return;
    const record = await readFolderRecord(this.keptAt, this.root, this.maxBytes);
    if (!record) return;
    this.seen = record;
    // a kind's listing is vouched for by its folder's stamp; a forgotten one is listed again
    this.listings = record.lists.slice();
    this.listingStamps = record.listingStamps.clone();
  }

  // the listing stamps as a record keeps them: a kind not kept as listed (its folder missing, or a link) is forgotten
  private keptListingStamps(): FileStamps {
    const kept = this.listingStamps.clone();
    for (let at = 0; at < ENTRY_KINDS.length; at++) if (!this.listings[at]) kept.forget(at);
    return kept;
  }

  // writes the last snapshot's record after this turn of the event loop, one write at a time, the newest snapshot last
  private keep(): void {
    if (!this.keptAt) return;
    this.unkept = true;
    this.keeping ??= this.keepLoop(this.keptAt);
  }

  private async keepLoop(path: string): Promise<void> {
    await letGo();
    for (;;) {
      // checked and cleared in one turn: a snapshot's keep() after this sees no write under way and starts one
      if (!this.unkept || !this.seen) {
        this.keeping = undefined;
        return;
      }
      this.unkept = false;
      await writeFolderRecord(path, this.root, this.maxBytes, this.seen).catch((error: unknown) => process.emitWarning(`folder record not written: ${String(error)}`));
    }
  }

  /**
   * Takes each entry's oid from the last snapshot when its file's stat vouches for it (stamped into `stamps`), and
   * says which files are to be read. `before` gives each entry's position in the last snapshot; without it, the
   * entries and `stamps` are the last snapshot's, position for position: one to be read is replaced by an entry of
   * its own, and its stamp forgotten.
   * A file whose stat is what it was when it was last read, and that had not changed shortly before that read, is
   * not read again. The stats are taken synchronously, a slice at a time: ~10,000 lstat calls through the thread pool
   * cost ~0.5-0.8 s of CPU at load, each a few microseconds when made directly.
   */
  private async passOver(entries: ToolEntry[], before: Int32Array | undefined, seen: FolderRecord | undefined, stamps: FileStamps, signal: AbortSignal | undefined): Promise<ToRead[]> {
    const toRead: ToRead[] = [];
    for (let position = 0; position < entries.length; position++) {
      if (position % STAT_STEP === STAT_STEP - 1) {
        await letGo();
        throwIfStopped(signal);
      }
      const entry = entries[position]!;
      const stats = statOrUndefined(this.pathOf(entry));
      const from = before ? before[position]! : position;
      if (seen && from >= 0 && stats?.isFile() && seen.stamps.vouches(from, stats)) {
        if (before) {
          stamps.copy(position, seen.stamps, from);
          entry.oid = seen.entries[from]!.oid;
        }
      } else {
        if (!before) {
          // an entry of the last snapshot is never changed: it is what that snapshot gave
          entries[position] = entry.kind ? { kind: entry.kind, folder: entry.folder, oid: '' } : { folder: entry.folder, oid: '' };
          stamps.forget(position);
        }
        toRead.push({ position, stats });
      }
    }
    return toRead;
  }

  /**
   * Reads the files to be read, setting their entries' oids and stamping each file read whole by the stat taken
   * before it was read. Several files in flight: one after another, each file's lstat, open, stat, reads and close
   * waited for in turn took ~10 s of wall at 10,000 tools on a loaded machine.
   */
  private async readAll(entries: readonly ToolEntry[], toRead: readonly ToRead[], stamps: FileStamps, started: number, signal: AbortSignal | undefined): Promise<Map<string, Buffer | Diagnostic>> {
    const contents = new Map<string, Buffer | Diagnostic>();
    let next = 0;
    const reader = async (): Promise<void> => {
      while (next < toRead.length) {
        throwIfStopped(signal);
        const { position, stats } = toRead[next++]!;
        const entry = entries[position]!;
        const content = await this.readDefinition(entry.kind ?? 'tool', entry.folder);
        contents.set(entryKey(entry), content);
        entry.oid = Buffer.isBuffer(content) ? blobOid(content) : `missing:${(content as Diagnostic).code}`;
        if (stats?.isFile() && Buffer.isBuffer(content)) stamps.set(position, stats, started);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, toRead.length) }, reader));
    return contents;
  }

  /**
   * A kind's folders: last time's while its folder's stat vouches for them (a folder's modification time changes
   * whenever an entry is added to it, removed or renamed, not when a file in one of its folders is written), listed
   * again otherwise. A folder that is a link is listed each time: its stat is the link's. A kind without a folder
   * has no entries (a repository without tools/ is still told apart from one that does not exist).
   */
  private async listed(at: number, kind: EntryKind, started: number): Promise<readonly string[]> {
    const path = join(this.root, ENTRY_LAYOUT[kind].folder);
    const stats = statOrUndefined(path);
    // not listed through the thread pool just to be told so, at every rescan
    if (!stats && kind !== 'tool' && !existsSync(path)) {
      this.listings[at] = undefined;
      return [];
    }
    const last = this.listings[at];
    if (last && stats?.isDirectory() && this.listingStamps.vouches(at, stats)) return last;
    const folders = await this.folders(kind);
    this.relisted = true;
    this.listings[at] = stats?.isDirectory() ? folders : undefined;
    if (stats?.isDirectory()) this.listingStamps.set(at, stats, started);
    return folders;
  }

  // the definition's path: what `join(root, entryPath(…))` gives, without normalising 10,000 paths at each rescan
  private pathOf(entry: ToolEntry): string {
    const { folder: top, file, flat } = ENTRY_LAYOUT[entry.kind ?? 'tool'];
    return flat ? `${this.root}/${top}/${entry.folder}${file}` : `${this.root}/${top}/${entry.folder}/${file}`;
  }

  // symlinked folders are skipped: a link could point anywhere outside the repository
  private async folders(kind: EntryKind): Promise<string[]> {
    let folders: Dirent[];
    try {
      folders = await readdir(join(this.root, ENTRY_LAYOUT[kind].folder), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
      if (kind === 'tool') await this.assertRootExists();
      return [];
    }
    const { file, flat } = ENTRY_LAYOUT[kind];
    // a flat kind's entries are files (a symlink among them is listed, and then refused as not a regular file)
    if (flat) return folders.filter((dirent) => !dirent.isDirectory() && dirent.name.endsWith(file) && dirent.name.length > file.length).map((dirent) => dirent.name.slice(0, -file.length)).sort(compare);
    return folders.filter((dirent) => dirent.isDirectory()).map((dirent) => dirent.name).sort(compare);
  }

  private async readDefinition(kind: EntryKind, folder: string): Promise<Buffer | Diagnostic> {
    const { file: name, flat } = ENTRY_LAYOUT[kind];
    const path = join(this.root, entryPath(kind, folder));
    const at = { file: definitionPath(folder, kind), line: 1, column: 1 };
    const file = flat ? at.file : name;
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${file} must be a regular file (not a symlink or folder)` };
      return await readBounded(path, this.maxBytes, at, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return missingDefinition(kind, folder);
      if (code === 'ELOOP') return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${file} must be a regular file (not a symlink or folder)` };
      return { ...at, severity: 'error', code: 'READ_FAILED', message: `${file} could not be read: ${(error as Error).message}` };
    }
  }

  private async assertRootExists(): Promise<void> {
    try {
      await lstat(this.root);
    } catch {
      throw new ScanError('SOURCE_NOT_FOUND', `repository '${this.root}' does not exist; pass --repo with a folder holding tools/, a git repository, or an http(s) URL`);
    }
  }
}

// a submodule's checkout (its `.git` a file naming the superproject's module, or a folder): what a git registry sees as a submodule
function isCheckout(folder: string): boolean {
  return existsSync(join(folder, '.git'));
}

/** The entries of a listing, each kind's folders in turn, their oids not yet known. */
function entriesOf(lists: ReadonlyArray<readonly string[]>): ToolEntry[] {
  const entries: ToolEntry[] = [];
  for (const [at, kind] of ENTRY_KINDS.entries()) {
    for (const folder of lists[at]!) entries.push(kind === 'tool' ? { folder, oid: '' } : { kind, folder, oid: '' });
  }
  return entries;
}

/** For each entry, its position in what the last snapshot saw (-1: not there). */
function positionsBefore(entries: readonly ToolEntry[], seen: FolderRecord | undefined): Int32Array {
  const positions = new Int32Array(entries.length).fill(-1);
  if (!seen) return positions;
  const was = new Map<string, number>();
  seen.entries.forEach((entry, position) => was.set(entryKey(entry), position));
  entries.forEach((entry, position) => {
    positions[position] = was.get(entryKey(entry)) ?? -1;
  });
  return positions;
}

// the entries changed, added and removed since the last snapshot, of other folders (`before`: each entry's position then, or -1)
function movedSince(entries: readonly ToolEntry[], before: Int32Array, seen: FolderRecord): EntryDiff {
  const diff: EntryDiff = { changed: [], added: [], removed: [] };
  const kept = new Uint8Array(seen.entries.length);
  entries.forEach((entry, position) => {
    const from = before[position]!;
    if (from < 0) diff.added.push(entry);
    else {
      kept[from] = 1;
      if (entry.oid !== seen.entries[from]!.oid) diff.changed.push(entry);
    }
  });
  seen.entries.forEach((entry, position) => {
    if (!kept[position]) diff.removed.push(entry);
  });
  return diff;
}

function sameFolders(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false;
  return true;
}

/**
 * What a folder of entries is identified by: each entry's line (a tool's as it always was, so that a folder of tools
 * keeps its commit id), hashed a slice of lines at a time as one text (100,000 lines made and hashed at once held the
 * event loop ~40 ms at load).
 */
async function digestOf(entries: readonly ToolEntry[]): Promise<string> {
  const digest = createHash('sha1');
  for (let start = 0; start < entries.length; start += DIGEST_STEP) {
    if (start > 0) await letGo();
    const lines = new Array<string>(Math.min(DIGEST_STEP, entries.length - start));
    for (let at = 0; at < lines.length; at++) {
      const entry = entries[start + at]!;
      lines[at] = entry.kind ? `${entry.kind}/${entry.folder}\0${entry.oid}\n` : `${entry.folder}\0${entry.oid}\n`;
    }
    digest.update(lines.join(''));
  }
  return digest.digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
