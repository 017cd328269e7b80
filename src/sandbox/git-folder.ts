import { closeSync, constants, fchownSync, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, statSync, writeSync, type Dirent } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { controlText } from './control-text.js';
import { insideDescriptor, openFolderNoFollow } from './folder-descriptor.js';

// What makes a folder a git folder, as git itself decides it, and the control entries in one that name what git runs
// on the host: read by repository-guards.ts, which finds them in a workspace.

/**
 * The entries of a git folder that name programs git runs for whoever next uses the repository, outside any sandbox,
 * or where git finds them: `commondir` sends git to another folder's config and hooks (review O, O3), `gitdir` names a
 * worktree's checkout.
 */
export const GIT_CONTROL_ENTRIES = ['config', 'config.worktree', 'hooks', 'commondir', 'gitdir'];

/**
 * What a repository's own `commondir` says when the sandbox writes one: "the common folder is this one", as git reads a
 * repository without it (git 2.39: status, commit, worktree add, gc unchanged). A missing entry cannot be shown
 * read-only, and a tool that wrote one pointing at a folder of its own gave git a config (core.fsmonitor) it ran on
 * the host at the owner's next `git status` (review O, O3).
 */
export const OWN_COMMON_FOLDER = '.\n';

/**
 * The control entries a git folder may lack that git reads once they exist, made (empty, or naming the folder itself)
 * so that they can be shown read-only: a tool would otherwise create them. `config.worktree` is read, main folder and
 * linked worktree alike, whenever the (read-only) config turns extensions.worktreeConfig on, by hand or by `git
 * sparse-checkout`, which writes the main folder's but not those of worktrees added later (review P, P2); an empty
 * one is an empty config to git 2.39, as no file is. A worktree's hooks, config and commondir are its repository's.
 */
export const MADE_WHEN_MISSING: readonly { name: string; folder: boolean; worktree: boolean; text: string }[] = [
  { name: 'hooks', folder: true, worktree: false, text: '' },
  // what git reads with no config (version 0), and what finds the folder again once HEAD is moved aside (`isGitFolder`)
  { name: 'config', folder: false, worktree: false, text: '[core]\n\trepositoryformatversion = 0\n' },
  { name: 'commondir', folder: false, worktree: false, text: OWN_COMMON_FOLDER },
  { name: 'config.worktree', folder: false, worktree: true, text: '' },
];

/**
 * Whether a folder is one git opens as a git folder, by what it holds (a `.git`, a bare repository such as
 * `origin.git`, a separate git folder, under any name), as git's setup.c `is_git_directory` checks it: a valid HEAD
 * (`ref: refs/…`, an object id, or a symbolic link into refs/), and objects/ and refs/ in its common folder (its own,
 * or the one its commondir names) (review P, P9). Or a git folder an earlier launch guarded: a config as `git init`
 * writes it beside a commondir, which the sandbox makes in every git folder it guards and shows read-only, so that a
 * tool that moves HEAD, objects or refs aside does not have the folder overlooked at the next launch; a plain folder
 * holding a file named config is none (a project's `settings/config`). `entries` is its listing when already read.
 */
export function isGitFolder(folder: string, entries?: readonly Dirent[]): boolean {
  try {
    const info = (name: string) => (entries === undefined ? lstatSync(join(folder, name), { throwIfNoEntry: false }) : entries.find((entry) => entry.name === name));
    const head = info('HEAD');
    const commondir = info('commondir');
    if (head !== undefined && validHead(join(folder, 'HEAD'), head.isSymbolicLink())) {
      const common = commondir === undefined ? folder : commonFolder(folder);
      if (common !== undefined && isFolder(join(common, 'objects'), common === folder ? info('objects') : undefined) && isFolder(join(common, 'refs'), common === folder ? info('refs') : undefined)) return true;
    }
    return commondir?.isFile() === true && info('config')?.isFile() === true && GIT_CONFIG.test(controlText(join(folder, 'config'), 65_536));
  } catch {
    return false;
  }
}

/** What `git init` writes in every git folder's config, bare or not. */
const GIT_CONFIG = /^\s*(?:repositoryformatversion|bare)\s*=/im;

/** setup.c's validate_headref: a symbolic link into refs/, `ref:` and blanks then refs/, or an object id (sha1 or sha256). */
function validHead(path: string, link: boolean): boolean {
  try {
    if (link) return readlinkSync(path).startsWith('refs/');
    return /^(?:ref:\s*refs\/|[0-9a-fA-F]{40})/.test(controlText(path, 255));
  } catch {
    return false;
  }
}

/** The folder a git folder's commondir names (relative to it), or undefined. */
function commonFolder(folder: string): string | undefined {
  const named = controlText(join(folder, 'commondir'), 4096).split('\n')[0]!.trim();
  return named === '' ? undefined : resolve(folder, named);
}

// git's access(X_OK): a folder, or a link to one
function isFolder(path: string, entry: { isSymbolicLink(): boolean; isDirectory(): boolean } | undefined): boolean {
  if (entry !== undefined && !entry.isSymbolicLink()) return entry.isDirectory();
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The nearest folder above `path` that git opens as a git folder (or named .git), or undefined. */
export function enclosingGitFolder(path: string): string | undefined {
  for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) {
    if (basename(folder) === '.git' || isGitFolder(folder)) return folder;
  }
  return undefined;
}

/** Whether a missing control entry was made, could not be (a folder the gateway cannot write), or met a symbolic link on its way. */
export type MadeEntry = 'made' | 'failed' | 'linked';

/**
 * Makes a missing control entry of `gitFolder` as git would (a folder 0755, a file 0644), owned as the git folder
 * is: a root gateway's entries left root's in a user's repository kept its owner from installing a hook (review P,
 * P3). `failed` when it could not be made: a folder the gateway cannot write is none a tool can write either.
 * Everything is done by descriptor, the folders opened a component at a time without following a link (review T,
 * T3: made by path, a tool that swapped its folder for a link to another repository meanwhile had root make the entry
 * there, and could have had it given to the tool's owner); a link on the way is `linked`, and nothing is made.
 */
export function makeOwnedAs(gitFolder: string, path: string, folder: boolean, text: string): MadeEntry {
  const parent = openFolderNoFollow(dirname(path));
  if (!parent.ok) return parent.linked ? 'linked' : 'failed';
  let entry: number;
  try {
    const at = insideDescriptor(parent.fd, basename(path));
    if (folder) {
      mkdirSync(at, { mode: 0o755 });
      entry = openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } else {
      entry = openSync(at, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      writeSync(entry, text);
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'linked' : 'failed';
  } finally {
    closeSync(parent.fd);
  }
  try {
    const owner = ownerOf(gitFolder);
    if (owner && process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0)) fchownSync(entry, owner.uid, owner.gid);
  } catch {
    // made, and shown read-only: whose it is on the host does not change what a tool can do
  } finally {
    closeSync(entry);
  }
  return 'made';
}

// the git folder's owner, from the folder itself opened without following a link (none when it cannot be)
function ownerOf(gitFolder: string): { uid: number; gid: number } | undefined {
  const opened = openFolderNoFollow(gitFolder);
  if (!opened.ok) return undefined;
  try {
    const { uid, gid } = fstatSync(opened.fd);
    return { uid, gid };
  } finally {
    closeSync(opened.fd);
  }
}

/** The common git folder a linked worktree's git folder names in its commondir, or undefined. */
export function commonFolderOf(gitFolder: string): string | undefined {
  try {
    return commonFolder(gitFolder);
  } catch {
    return undefined;
  }
}

/**
 * Where git runs hooks for a git folder, which a relative core.hooksPath is read from: a `.git`'s folder, a linked
 * worktree's checkout (its gitdir names the checkout's `.git` file), the folder itself for a bare repository or one
 * whose checkout is not known.
 */
export function workingTreeTop(gitFolder: string, linked: boolean, common: string | undefined): string {
  if (linked) {
    try {
      return dirname(resolve(gitFolder, controlText(join(gitFolder, 'gitdir'), 4096).split('\n')[0]!.trim()));
    } catch {
      return gitFolder;
    }
  }
  if (basename(gitFolder) === '.git') return dirname(gitFolder);
  return common ?? gitFolder;
}

/** The real git folder a `.git` file (`gitdir: PATH`, relative to its folder) names, or undefined when it names none. */
export function gitFileTarget(file: string): string | undefined {
  try {
    const text = controlText(file, 4096);
    const named = /^gitdir: *(.+?)\s*$/m.exec(text)?.[1];
    if (named === undefined) return undefined;
    const target = realpathSync(isAbsolute(named) ? named : join(dirname(file), named));
    return lstatSync(target).isDirectory() ? target : undefined;
  } catch {
    return undefined;
  }
}
