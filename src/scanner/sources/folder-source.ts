import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Diagnostic } from '../../core/index.js';
import { ScanError } from '../scan-error.js';
import { definitionPath, type RepositorySource, type Snapshot, type ToolEntry } from './source.js';

/** Reads `tools/*\/TOOL.hdlp` from a plain folder (the working tree, not git). */
export class FolderSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.label = this.root;
    this.cacheKey = `folder:${this.root}`;
  }

  async snapshot(): Promise<Snapshot> {
    const toolsDir = join(this.root, 'tools');
    let folders: Dirent[];
    try {
      folders = await readdir(toolsDir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await this.assertRootExists();
      folders = [];
    }
    // symlinked folders are skipped: a link could point anywhere outside the repository
    const names = folders.filter((dirent) => dirent.isDirectory()).map((dirent) => dirent.name).sort(compare);
    const contents = new Map<string, Buffer | Diagnostic>();
    const entries: ToolEntry[] = [];
    const digest = createHash('sha1');
    for (const folder of names) {
      const content = await this.readDefinition(folder);
      contents.set(folder, content);
      const oid = Buffer.isBuffer(content) ? blobOid(content) : `missing:${(content as Diagnostic).code}`;
      entries.push({ folder, oid });
      digest.update(`${folder}\0${oid}\n`);
    }
    return {
      commit: `folder:${digest.digest('hex')}`,
      listEntries: async () => entries,
      read: async (entry) => {
        const content = contents.get(entry.folder)!;
        return Buffer.isBuffer(content) ? { path: definitionPath(entry.folder), folder: entry.folder, oid: entry.oid, content } : content;
      },
    };
  }

  private async readDefinition(folder: string): Promise<Buffer | Diagnostic> {
    const path = join(this.root, 'tools', folder, 'TOOL.hdlp');
    const at = { file: definitionPath(folder), line: 1, column: 1 };
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) return { ...at, severity: 'error', code: 'NOT_A_FILE', message: 'TOOL.hdlp must be a regular file (not a symlink or folder)' };
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return { ...at, file: `tools/${folder}/`, severity: 'warning', code: 'MISSING_DEFINITION', message: `tools/${folder}/ has no TOOL.hdlp, so it is not a tool` };
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

/** The git blob id of some content, so folder and git sources identify tools the same way. */
export function blobOid(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.byteLength}\0`).update(content).digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
