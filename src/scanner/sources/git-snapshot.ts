import type { Diagnostic } from '../../core/index.js';
import { loadGit } from './git-module.js';
import { snapshotFs, type PromiseFs } from './object-store-fs.js';
import { definitionPath, type Snapshot, type ToolEntry } from './source.js';

/** An isomorphic-git object store; one `cache` per repository keeps pack reads fast (10× at 1,000 files). */
export interface ObjectStore {
  gitdir: string;
  cache: object;
}

const SYMLINK_MODE = '120000';

/** Lists `tools/` at a commit from the object store (no working tree), reading each definition on demand. */
export async function readGitSnapshot(store: ObjectStore, commit: string): Promise<Snapshot> {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const fs = await snapshotFs(gitdir);
  const { commit: parsed } = await git.readCommit({ fs, gitdir, oid: commit, cache });
  const root = await git.readTree({ fs, gitdir, oid: parsed.tree, cache });
  const tools = root.tree.find((entry) => entry.path === 'tools' && entry.type === 'tree');
  const entries: ToolEntry[] = [];
  if (tools) {
    const listing = await git.readTree({ fs, gitdir, oid: tools.oid, cache });
    for (const entry of listing.tree) {
      // the subtree oid changes whenever anything in the folder does: unchanged oid, nothing to re-read
      if (entry.type === 'tree') entries.push({ folder: entry.path, oid: entry.oid });
    }
    entries.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  }
  return { commit, entries, read: (entry) => readDefinition(store, fs, entry) };
}

async function readDefinition(store: ObjectStore, fs: PromiseFs, entry: ToolEntry) {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const path = definitionPath(entry.folder);
  const folder = await git.readTree({ fs, gitdir, oid: entry.oid, cache });
  const file = folder.tree.find((item) => item.path === 'TOOL.hdlp');
  const at = { file: path, line: 1, column: 1 };
  if (!file) {
    return {
      ...at,
      file: `tools/${entry.folder}/`,
      severity: 'warning',
      code: 'MISSING_DEFINITION',
      message: `tools/${entry.folder}/ has no TOOL.hdlp, so it is not a tool`,
    } satisfies Diagnostic;
  }
  if (file.type !== 'blob' || file.mode === SYMLINK_MODE) {
    return { ...at, severity: 'error', code: 'NOT_A_FILE', message: 'TOOL.hdlp must be a regular file (not a symlink, folder or submodule)' } satisfies Diagnostic;
  }
  const { blob } = await git.readBlob({ fs, gitdir, oid: file.oid, cache });
  return { path, folder: entry.folder, oid: entry.oid, content: blob };
}

/** Refuses SHA-256 repositories: isomorphic-git reads SHA-1 object stores only. */
export async function objectFormat(gitdir: string): Promise<string> {
  const git = await loadGit();
  const fs = { promises: (await import('node:fs')).promises };
  const format = await git.getConfig({ fs, gitdir, path: 'extensions.objectformat' });
  return typeof format === 'string' ? format.toLowerCase() : 'sha1';
}
