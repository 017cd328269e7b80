import { relative, sep } from 'node:path';
import { writableRootsGuards } from './repository-guards.js';
import { isInside, pathFolders, readOnlyInside } from './workspace-rules.js';

/**
 * Why the gatekeeper's write_file may not write `path` (real, inside `root`), or undefined: the rule the sandbox
 * applies to processes, for a method that runs outside it, from the same walk (`repositoryGuards`). Inside any
 * `.git` or any git folder found by what it holds (a bare repository, the git folder a `.git` file names, a
 * submodule's or worktree's: its config and hooks are what git runs on the host, for whoever uses the repository
 * next: review P, P9 and P10), a read-only path of the sandbox (the tools repository, this package's own files, a PATH
 * folder: see `readOnlyInside`); and nothing where the sandbox runs no tool (a symbolic link control entry, a bound
 * passed).
 */
export function writeRefusal(path: string, root: string, readOnly: readonly string[]): string | undefined {
  const inRoot = relative(root, path).split(sep);
  const inGitFolder = `it is inside a git repository's .git or other git folder (a bare repository, one a .git file names: its config and hooks name programs git runs on the host, outside any sandbox, for whoever uses the repository next); the sandbox shows them read-only to tools too`;
  if (inRoot.includes('.git')) return inGitFolder;
  const guards = writableRootsGuards([root], { make: false });
  if (!guards.ok) return `the sandbox runs no tool in this workspace, and this method follows it: ${guards.reason}`;
  if (guards.gitFolders.some((folder) => isInside(path, folder)) || guards.readOnly.some((entry) => isInside(path, entry))) return inGitFolder;
  const held = readOnlyInside(root, [...readOnly, ...pathFolders()]).find((folder) => isInside(path, folder));
  if (held === undefined) return undefined;
  return `it is inside ${held}, which the sandbox shows read-only to tools (the tools repository, this gateway's own files or a folder on its PATH: what the gateway serves or runs next)`;
}
