import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';

/** The identity of commits the contract server makes when the request names none. */
export const SERVER_IDENTITY = { name: 'Forgejo Contract Server', email: 'server@contract.test' };

/** An author or committer as the Forgejo API takes it. */
export interface Identity {
  name: string;
  email: string;
}

/** Runs real `git` on a bare repository, optionally with input on stdin; rejects with git's stderr. */
export function runGit(repository: string, args: string[], options: { input?: Buffer; env?: Record<string, string> } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['--git-dir', repository, ...args],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...options.env } },
      (error, stdout, stderr) => (error ? reject(new Error(stderr.toString() || error.message)) : resolve(stdout)),
    );
    child.stdin?.end(options.input);
  });
}

/** `git` output as trimmed text. */
export async function gitText(repository: string, args: string[], options?: Parameters<typeof runGit>[2]): Promise<string> {
  return (await runGit(repository, args, options)).toString().trim();
}

/** The commit a ref names, or undefined when it names none. */
export async function resolveCommit(repository: string, ref: string): Promise<string | undefined> {
  try {
    return await gitText(repository, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    return undefined;
  }
}

/** One entry of `git ls-tree -l`. */
export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size: number | undefined;
  path: string;
}

/** `git ls-tree -l` parsed; paths are given whole, NUL-separated, so any file name is safe. */
export async function listTree(repository: string, treeish: string, options: { recursive?: boolean; paths?: string[] } = {}): Promise<TreeEntry[]> {
  const args = ['ls-tree', '-l', '-z', ...(options.recursive ? ['-r', '-t'] : []), treeish, '--', ...(options.paths ?? [])];
  const text = (await runGit(repository, args)).toString();
  return text
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const [meta, path] = [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)];
      const [mode, type, sha, size] = meta.split(/\s+/);
      return { mode: mode!, type: type as TreeEntry['type'], sha: sha!, size: size === '-' ? undefined : Number(size), path };
    });
}

/**
 * Makes one commit on `branch` that sets `path` to `content`, the way Forgejo's contents API does:
 * through a private index, and moving the branch only if it still points where it did (compare and swap).
 */
export async function commitFile(
  repository: string,
  change: { branch: string; parent: string; path: string; content: Buffer; message: string; author: Identity; committer: Identity },
): Promise<string> {
  const index = `${repository}/index-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: change.author.name,
    GIT_AUTHOR_EMAIL: change.author.email,
    GIT_COMMITTER_NAME: change.committer.name,
    GIT_COMMITTER_EMAIL: change.committer.email,
  };
  await runGit(repository, ['read-tree', change.parent], { env });
  // on any failure below the private index is left behind in the test's temporary folder, which is removed whole
  const blob = await gitText(repository, ['hash-object', '-w', '--stdin'], { input: change.content });
  await runGit(repository, ['update-index', '--add', '--cacheinfo', `100644,${blob},${change.path}`], { env });
  const tree = await gitText(repository, ['write-tree'], { env });
  const commit = await gitText(repository, ['commit-tree', tree, '-p', change.parent, '-F', '-'], { env, input: Buffer.from(change.message) });
  await runGit(repository, ['update-ref', `refs/heads/${change.branch}`, commit, change.parent]);
  await rm(index, { force: true });
  return commit;
}
