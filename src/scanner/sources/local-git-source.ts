import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fs from 'node:fs';
import { ScanError } from '../scan-error.js';
import { loadGit } from './git-module.js';
import { objectFormat, readGitSnapshot, type ObjectStore } from './git-snapshot.js';
import type { RepositorySource, Snapshot } from './source.js';

/** Reads tools from a local git repository's object store at a ref (default HEAD), never its working tree. */
export class LocalGitSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly store: ObjectStore;

  constructor(
    path: string,
    private readonly ref = 'HEAD',
  ) {
    const root = resolve(path);
    this.store = { gitdir: gitDirectoryOf(root) ?? root, cache: {} };
    this.label = ref === 'HEAD' ? root : `${root}#${ref}`;
    this.cacheKey = `git:${this.store.gitdir}#${ref}`;
  }

  async snapshot(): Promise<Snapshot> {
    const format = await objectFormat(this.store.gitdir);
    if (format !== 'sha1') {
      throw new ScanError('UNSUPPORTED_OBJECT_FORMAT', `repository '${this.label}' uses ${format} object ids; brush-holder reads SHA-1 repositories only (isomorphic-git has no SHA-256 support)`, { format });
    }
    const git = await loadGit();
    let commit: string;
    try {
      commit = await git.resolveRef({ fs, gitdir: this.store.gitdir, ref: this.ref });
    } catch {
      throw new ScanError('REF_NOT_FOUND', `ref '${this.ref}' does not exist in '${this.label}' (an empty repository has no commits yet)`, { ref: this.ref });
    }
    return readGitSnapshot(this.store, commit);
  }
}

/** The git directory of a repository at `path` (`path/.git`, or `path` itself when bare), if it is one. */
export function gitDirectoryOf(path: string): string | undefined {
  const dotGit = join(path, '.git');
  if (existsSync(dotGit) && statSync(dotGit).isDirectory()) return dotGit;
  if (existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects')) && existsSync(join(path, 'refs'))) return path;
  return undefined;
}
