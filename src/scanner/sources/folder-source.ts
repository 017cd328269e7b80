import { createHash } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, entryPath, type Diagnostic, type EntryKind } from '../../core/index.js';
import { ScanError } from '../scan-error.js';
import { tooLargeMessage } from '../yaml-mapping.js';
import { definitionPath, entryKey, type RepositorySource, type Snapshot, type ToolEntry } from './source.js';

/** Reads `tools/*\/TOOL.hdlp`, `toolsets/*\/TOOLSET.hdlp`, `skills/*\/SKILL.md` and `policies/*.hdlp` from a plain folder (the working tree, not git). */
export class FolderSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly root: string;

  constructor(
    root: string,
    private readonly maxBytes: number,
  ) {
    this.root = resolve(root);
    this.label = this.root;
    this.cacheKey = `folder:${this.root}`;
  }

  async snapshot(): Promise<Snapshot> {
    const contents = new Map<string, Buffer | Diagnostic>();
    const entries: ToolEntry[] = [];
    const digest = createHash('sha1');
    for (const kind of ENTRY_KINDS) {
      for (const folder of await this.folders(kind)) {
        const content = await this.readDefinition(kind, folder);
        const entry: ToolEntry = kind === 'tool' ? { folder, oid: '' } : { kind, folder, oid: '' };
        contents.set(entryKey(entry), content);
        entry.oid = Buffer.isBuffer(content) ? blobOid(content) : `missing:${(content as Diagnostic).code}`;
        entries.push(entry);
        // a tool's line is as it always was, so that a folder of tools only keeps its commit id
        digest.update(kind === 'tool' ? `${folder}\0${entry.oid}\n` : `${kind}/${folder}\0${entry.oid}\n`);
      }
    }
    return {
      commit: `folder:${digest.digest('hex')}`,
      listEntries: async () => entries,
      read: async (entry) => {
        const content = contents.get(entryKey(entry))!;
        const kind = entry.kind ?? 'tool';
        return Buffer.isBuffer(content)
          ? { ...(kind === 'tool' ? {} : { kind }), path: definitionPath(entry.folder, kind), folder: entry.folder, oid: entry.oid, content }
          : content;
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
