import { createHash } from 'node:crypto';
import { constants, lstatSync, type BigIntStats, type Dirent } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, entryPath, letGo, type Diagnostic, type EntryKind } from '../../core/index.js';
import { ScanError } from '../scan-error.js';
import { tooLargeMessage } from '../yaml-mapping.js';
import { definitionPath, entryKey, type RepositorySource, type Snapshot, type ToolEntry } from './source.js';

// files read at once by a snapshot
const READ_CONCURRENCY = 16;

/**
 * How long before a snapshot began a file must have last changed for its stat to vouch for its content next time. A
 * file system stamps times by a coarse clock: two writes of the same size within one tick leave the same stat, so a
 * file changed around the time it was read is read again (git's "racily clean" entries), until a snapshot reads it
 * when it has been still for this long.
 */
const RACY_MS = 2000;

// stats taken between two turns of the event loop
const STAT_STEP = 500;

// a file that cannot be stated is read, and reading it says why
function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What identifies a file's state without reading it (as git's index does), and the last time it changed. */
function stampOf(stats: BigIntStats | undefined): { key: string; changedMs: number } | undefined {
  if (!stats?.isFile()) return undefined;
  const changedNs = stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs;
  return { key: `${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`, changedMs: Number(changedNs / 1_000_000n) };
}

/** Reads `tools/*\/TOOL.hdlp`, `toolsets/*\/TOOLSET.hdlp`, `skills/*\/SKILL.md` and `policies/*.hdlp` from a plain folder (the working tree, not git). */
export class FolderSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly root: string;
  /** each definition file last read: its stat then, when that snapshot began, and its blob id (not its bytes: 130 MB at 100,000 tools) */
  private known = new Map<string, { stamp: string; readAt: number; oid: string }>();

  constructor(
    root: string,
    private readonly maxBytes: number,
  ) {
    this.root = resolve(root);
    this.label = this.root;
    this.cacheKey = `folder:${this.root}`;
  }

  async snapshot(): Promise<Snapshot> {
    const started = Date.now();
    const contents = new Map<string, Buffer | Diagnostic>();
    const entries: ToolEntry[] = [];
    for (const kind of ENTRY_KINDS) {
      for (const folder of await this.folders(kind)) entries.push(kind === 'tool' ? { folder, oid: '' } : { kind, folder, oid: '' });
    }
    const known = this.known;
    this.known = new Map();
    // a file whose stat is what it was when it was last read, and that had not changed shortly before that read, is
    // not read again. The stats are taken synchronously, a slice at a time: ~10,000 lstat calls through the thread
    // pool cost ~0.5-0.8 s of CPU at load, each a few microseconds when made directly
    const toRead: Array<{ entry: ToolEntry; stamp: string | undefined }> = [];
    for (let position = 0; position < entries.length; position++) {
      if (position % STAT_STEP === STAT_STEP - 1) await letGo();
      const entry = entries[position]!;
      const key = entryKey(entry);
      const stamp = stampOf(statOrUndefined(join(this.root, entryPath(entry.kind ?? 'tool', entry.folder))));
      const last = stamp === undefined ? undefined : known.get(key);
      if (last && last.stamp === stamp!.key && stamp!.changedMs < last.readAt - RACY_MS) {
        entry.oid = last.oid;
        this.known.set(key, last);
      } else toRead.push({ entry, stamp: stamp?.key });
    }
    // several files in flight: one after another, each file's lstat, open, stat, reads and close waited for in turn
    // took ~10 s of wall at 10,000 tools on a loaded machine
    let next = 0;
    const reader = async (): Promise<void> => {
      while (next < toRead.length) {
        const { entry, stamp } = toRead[next++]!;
        const content = await this.readDefinition(entry.kind ?? 'tool', entry.folder);
        contents.set(entryKey(entry), content);
        entry.oid = Buffer.isBuffer(content) ? blobOid(content) : `missing:${(content as Diagnostic).code}`;
        if (stamp !== undefined && Buffer.isBuffer(content)) this.known.set(entryKey(entry), { stamp, readAt: started, oid: entry.oid });
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, toRead.length) }, reader));
    const digest = createHash('sha1');
    // a tool's line is as it always was, so that a folder of tools only keeps its commit id
    for (const entry of entries) digest.update(entry.kind ? `${entry.kind}/${entry.folder}\0${entry.oid}\n` : `${entry.folder}\0${entry.oid}\n`);
    return {
      commit: `folder:${digest.digest('hex')}`,
      listEntries: async () => entries,
      read: async (entry) => {
        const kind = entry.kind ?? 'tool';
        // a file passed over by its stat is read when asked for (a scanner whose last scan did not keep it)
        const content = contents.get(entryKey(entry)) ?? (await this.readDefinition(kind, entry.folder));
        if (!Buffer.isBuffer(content)) return content;
        if (blobOid(content) !== entry.oid) throw new Error(`${definitionPath(entry.folder, kind)} changed while it was scanned`);
        return { ...(kind === 'tool' ? {} : { kind }), path: definitionPath(entry.folder, kind), folder: entry.folder, oid: entry.oid, content };
      },
    };
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
    const { folder: top, file: name, flat } = ENTRY_LAYOUT[kind];
    const path = join(this.root, entryPath(kind, folder));
    const at = { file: definitionPath(folder, kind), line: 1, column: 1 };
    const file = flat ? at.file : name;
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${file} must be a regular file (not a symlink or folder)` };
      return await readBounded(path, this.maxBytes, at, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { ...at, file: `${top}/${folder}/`, severity: 'warning', code: 'MISSING_DEFINITION', message: `${top}/${folder}/ has no ${file}, so it is not a ${kind}` };
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

/**
 * Reads a file only if it is within `limit` bytes, judged by the open file's size before any byte is read.
 * Symlinks are not followed; a file that grows while it is read is reported, never cut short.
 */
export async function readBounded(path: string, limit: number, at: { file: string; line: number; column: number }, label = 'TOOL.hdlp'): Promise<Buffer | Diagnostic> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${label} must be a regular file (not a symlink, folder or device)` };
    if (stats.size > limit) return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(stats.size, limit, label) };
    // one byte more than its size: a file that grew while being read is noticed
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > stats.size) return { ...at, severity: 'error', code: 'READ_FAILED', message: `${label} changed while it was read; scan again` };
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** The git blob id of some content, so folder and git sources identify tools the same way. */
export function blobOid(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.byteLength}\0`).update(content).digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
