import { entryPath, type Diagnostic, type EntryKind } from '../../core/index.js';
import type { DefinitionFile } from '../parse-tool-definition.js';
import type { ClaimHistory } from './claim-history.js';

/** One folder under `tools/` (or `toolsets/`, `skills/`), identified by the oid of its content. */
export interface ToolEntry {
  /** a tool when absent */
  kind?: EntryKind;
  folder: string;
  /** changes whenever anything the definition depends on changes */
  oid: string;
}

/** The entry folders that differ between two commits, each in its listing's order: `removed` with its old oid. */
export interface EntryDiff {
  changed: ToolEntry[];
  added: ToolEntry[];
  removed: ToolEntry[];
}

/** What a source holds at one commit. */
export interface Snapshot {
  commit: string;
  /** set when the source could not be reached and this is what was last fetched */
  stale?: { reason: string; since: string };
  /** entry folders: tools sorted by folder name, then toolsets, then skills; listed on demand (a cached commit never needs the listing) */
  listEntries(): Promise<ToolEntry[]>;
  /**
   * what changed in the entry folders since an earlier commit, found by comparing trees from the top (an unchanged
   * folder is skipped by its id, unread); undefined when it cannot say (that commit is not held, a tree is not in
   * git's order): the caller then lists every entry
   */
  diffEntries?(since: string): Promise<EntryDiff | undefined>;
  /** the one commit `diffEntries` answers from, where it answers from one only (a folder's last snapshot, kept across restarts) */
  diffBase?: string;
  /** what under `policies/` is not `policies/<name>.hdlp` and so is never read, listed at each scan (see `strayPolicies`) */
  strays?(): Promise<Diagnostic[]>;
  /** reads the entry's `TOOL.hdlp` (`TOOLSET.hdlp`, `SKILL.md`), or explains why there is none */
  read(entry: ToolEntry): Promise<DefinitionFile | Diagnostic>;
  /** asks git history which of several claims on a name is older (a git source only): at a clash the previous index does not settle */
  history?: ClaimHistory;
  /** lets go of what reading held (a git source's pack contents and delta bases) once a scan read what it needed; a later read reads them again */
  release?(): void;
}

/**
 * What a signed push webhook said: the branch it moved (`refs/heads/<name>`) and the commit it now names. A hint, never
 * trusted alone: a source that uses it still checks that its branch names that commit.
 */
export interface PushHint {
  ref: string;
  after: string;
}

/** A place tools are read from: a folder, a local git repository, or a remote over smart HTTP. */
export interface RepositorySource {
  /** shown to users; never holds credentials */
  readonly label: string;
  /** what the index cache is keyed by */
  readonly cacheKey: string;
  /**
   * resolves the current commit and lists its tools; `pushed` may let a remote fetch while it checks its branch's head;
   * `signal` drops a remote's requests under way (a server stopped while its first scan fetches: review Z17, Z17-6)
   */
  snapshot(pushed?: PushHint, signal?: AbortSignal): Promise<Snapshot>;
  /** resolves once what the source keeps on disk of its last snapshot is written (a folder's record of its files' stats) */
  flush?(): Promise<void>;
}

/** The path of an entry's definition inside the repository (a tool's by default). */
export function definitionPath(folder: string, kind: EntryKind = 'tool'): string {
  return entryPath(kind, folder);
}

/** The key an entry is remembered by between scans: its kind and folder. */
export function entryKey(entry: { kind?: EntryKind; folder: string }): string {
  return `${entry.kind ?? 'tool'}/${entry.folder}`;
}

/**
 * A scan stopped by its signal (a service stopped while it starts): no file's problem, as a file that cannot be read
 * is, but the scan's end; nothing of it is kept.
 */
export class ScanStopped extends Error {
  constructor(reason: unknown) {
    super(`the scan was stopped${reason instanceof Error ? `: ${reason.message}` : ''}`, { cause: reason });
    this.name = 'ScanStopped';
  }
}

/** Throws `ScanStopped` once `signal` aborted: looked at between files (a property read, nothing at 100,000 of them). */
export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ScanStopped(signal.reason);
}

/**
 * `snapshot` with each read looked at against `signal` before and after it: a folder's or a local repository's scan,
 * its files read and parsed one after another (seconds to minutes at 100,000 definitions), stops between two files
 * once a service is stopped while it starts (a remote's requests are dropped by the signal itself).
 */
export function stoppedBy(snapshot: Snapshot, signal: AbortSignal | undefined): Snapshot {
  if (!signal) return snapshot;
  const { read } = snapshot;
  return {
    ...snapshot,
    read: async (entry) => {
      throwIfStopped(signal);
      const file = await read(entry);
      throwIfStopped(signal);
      return file;
    },
  };
}

/**
 * A signal that follows `signal` until `done`: the scan's own, so that what of its snapshot is read after it (a
 * definition read back when asked for, once the service runs or as it closes) is not stopped by a signal meant for it.
 */
export function whileScanning(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; done(): void } {
  if (!signal) return { signal, done: () => undefined };
  const scan = new AbortController();
  const follow = (): void => scan.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return { signal: scan.signal, done: () => signal.removeEventListener('abort', follow) };
}
