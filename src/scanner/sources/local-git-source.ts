import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fs from 'node:fs';
import { ScanError } from '../scan-error.js';
import { loadGit, type Git } from './git-module.js';
import { objectFormat, readGitSnapshot, type ObjectStore } from './git-snapshot.js';
import { stoppedBy, type PushHint, type RepositorySource, type Snapshot } from './source.js';

/** Reads tools from a local git repository's object store at a ref (default HEAD), never its working tree. */
export class LocalGitSource implements RepositorySource {
  readonly label: string;
  readonly cacheKey: string;
  private readonly store: ObjectStore;

  constructor(
    path: string,
    private readonly ref: string,
    private readonly maxBytes: number,
  ) {
    const root = resolve(path);
    this.store = { gitdir: gitDirectoryOf(root) ?? root, cache: {} };
    this.label = ref === 'HEAD' ? root : `${root}#${ref}`;
    this.cacheKey = `git:${this.store.gitdir}#${ref}`;
  }

  /** `signal` stops the scan between two files: each read of the snapshot looks at it */
  async snapshot(_pushed?: PushHint, signal?: AbortSignal): Promise<Snapshot> {
    return stoppedBy(await this.snapshotAt(), signal);
  }

  private async snapshotAt(): Promise<Snapshot> {
    const format = await objectFormat(this.store.gitdir);
    if (format !== 'sha1') {
      throw new ScanError('UNSUPPORTED_OBJECT_FORMAT', `repository '${this.label}' uses ${format} object ids; brush-holder reads SHA-1 repositories only (isomorphic-git has no SHA-256 support)`, { format });
    }
    // the everyday case, HEAD on a branch whose ref is a loose file, is read without loading isomorphic-git (issue #18)
    const head = this.ref === 'HEAD' ? await looseHead(this.store.gitdir) : undefined;
    if (head !== undefined) return readGitSnapshot(this.store, head, this.maxBytes);
    const git = await loadGit();
    let commit: string;
    try {
      commit = await resolveRevision(git, this.store, this.ref);
    } catch (error) {
      const empty = await git.resolveRef({ fs, gitdir: this.store.gitdir, ref: 'HEAD' }).then(() => false, () => true);
      const why = empty ? 'the repository has no commits yet' : `${(error as Error).message}; give a branch, a tag, a commit id, or one of them followed by ~N or ^N`;
      throw new ScanError('REF_NOT_FOUND', `ref '${this.ref}' cannot be read in '${this.label}': ${why}`, { ref: this.ref });
    }
    return readGitSnapshot(this.store, commit, this.maxBytes);
  }
}

const COMMIT_ID = /^[0-9a-f]{40}$/;

/**
 * The commit HEAD names, when HEAD is a commit id or `ref: refs/…` naming a loose ref file that holds one: what
 * isomorphic-git's resolveRef answers then (it reads the loose file before packed-refs). Anything else (a packed
 * ref, a ref naming a ref, a file that cannot be read) is undefined, for isomorphic-git to resolve.
 */
async function looseHead(gitdir: string): Promise<string | undefined> {
  const head = (await readFile(join(gitdir, 'HEAD'), 'utf8').catch(() => '')).trim();
  if (COMMIT_ID.test(head)) return head;
  const target = /^ref: (refs\/[^\0\n]+)$/.exec(head)?.[1];
  if (target === undefined || target.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
  const commit = (await readFile(join(gitdir, target), 'utf8').catch(() => '')).trim();
  return COMMIT_ID.test(commit) ? commit : undefined;
}

// isomorphic-git resolves names and full ids; git's everyday `HEAD~2`, `main^` and short ids are walked here
async function resolveRevision(git: Git, { gitdir, cache }: ObjectStore, revision: string): Promise<string> {
  const [, name = revision, steps = ''] = /^(.*?)((?:[~^]\d*)*)$/.exec(revision) ?? [];
  let oid: string;
  try {
    oid = await git.resolveRef({ fs, gitdir, ref: name });
  } catch (error) {
    if (!/^[0-9a-f]{4,39}$/i.test(name)) throw error;
    oid = await git.expandOid({ fs, gitdir, cache, oid: name.toLowerCase() });
  }
  for (const [, operator, digits] of steps.matchAll(/([~^])(\d*)/g)) {
    const count = digits === '' ? 1 : Number(digits);
    if (operator === '^') {
      if (count === 0) continue;
      const parent = (await git.readCommit({ fs, gitdir, cache, oid })).commit.parent[count - 1];
      if (parent === undefined) throw new Error(`commit ${oid.slice(0, 12)} has no parent ${count}`);
      oid = parent;
      continue;
    }
    for (let step = 0; step < count; step += 1) {
      const parent = (await git.readCommit({ fs, gitdir, cache, oid })).commit.parent[0];
      if (parent === undefined) throw new Error(`commit ${oid.slice(0, 12)} has no parent (it is the first commit)`);
      oid = parent;
    }
  }
  return oid;
}

/** The git directory of a repository at `path` (`path/.git`, or `path` itself when bare), if it is one. */
export function gitDirectoryOf(path: string): string | undefined {
  const dotGit = join(path, '.git');
  if (existsSync(dotGit) && statSync(dotGit).isDirectory()) return dotGit;
  if (existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects')) && existsSync(join(path, 'refs'))) return path;
  return undefined;
}
