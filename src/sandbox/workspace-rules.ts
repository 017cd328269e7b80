import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SYSTEM_FOLDERS } from './bubblewrap.js';

// What a tool may write in its workspace, one rule for the sandbox's binds (bubblewrap-arguments.ts) and for the
// gatekeeper's file methods, which write on the host outside any sandbox (review N, N25): they cannot drift apart.

/** The host's own kernel and device views and sockets: never bound from the host, whatever a tool declares. */
export const HOST_ONLY = ['/proc', '/sys', '/dev', '/run', '/var/run', '/boot'];

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

/** How deep below the workspace nested repositories are looked for: `a/b/.git` is found, `a/b/c/.git` is not. */
export const NESTED_REPOSITORY_DEPTH = 2;
/** The most repositories (nested, submodules, worktrees) a launch protects; a workspace with more runs no local tool. */
export const MAX_REPOSITORIES = 100;
/** The most folders read looking for them; a workspace with more at those depths runs no local tool. */
export const MAX_FOLDERS_READ = 2000;

export const isInside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/** The home folders a workspace may not be or hold: the gateway user's own (as given and real), /root, and each of /home. */
function homeFolders(): string[] {
  const home = homedir();
  const homes = new Set([home, '/root']);
  try {
    homes.add(realpathSync(home));
  } catch {
    // a home folder that does not exist holds nothing to protect
  }
  return [...homes];
}

/**
 * Why a workspace cannot be given to tools, or undefined: `/` (a service started where systemd starts it, without
 * workspace_root: review K, K10), a folder holding the host's own or a system folder, or a home folder or one holding
 * it (the cwd an MCP client or a login shell gives: ~/.ssh/authorized_keys, ~/.bashrc, ~/.npmrc are what the user's
 * shell and programs run next, outside any sandbox; review N, N19). (A PATH folder inside a workspace is shown
 * read-only on top of it instead.)
 */
export function workspaceConflict(workspace: string): string | undefined {
  if (workspace === '/') return "the workspace is /, the host's whole file system";
  const held = [...HOST_ONLY, ...SYSTEM_FOLDERS].find((folder) => isInside(folder, workspace));
  if (held !== undefined) return `the workspace ${workspace} holds the host's ${held}`;
  const home = homeFolders().find((folder) => isInside(folder, workspace));
  if (home !== undefined) return `the workspace ${workspace} ${home === workspace ? 'is' : 'holds'} the home folder ${home} (its dot-entries, such as .ssh/authorized_keys and .bashrc, are what its user's shell and programs run next)`;
  if (workspace === '/home' || dirname(workspace) === '/home') return `the workspace ${workspace} is or holds a home folder under /home`;
  return undefined;
}

/** The absolute folders of a PATH (the gateway's own: `npx` puts a project's node_modules/.bin first). */
export function pathFolders(path: string | undefined = process.env.PATH): string[] {
  return (path ?? '').split(delimiter).filter((folder) => isAbsolute(folder));
}

/**
 * The read-only paths that apply inside a workspace: of `protect` (the tools repository, this package's own files)
 * and the PATH folders, those not holding the workspace (the workspace wins where it is inside one).
 */
export function readOnlyInside(workspace: string, protect: readonly string[]): string[] {
  return protect.filter((path) => !isInside(workspace, path));
}

/** A git repository's protected entries found in a workspace, or why there are too many to protect. */
export type RepositoryGuards = { ok: true; /** bound read-only */ readOnly: string[]; /** bound onto themselves, outermost first: rename(2) refuses a mount point */ pinned: string[] } | { ok: false; reason: string };

/**
 * Each git repository in the workspace as found now: the workspace's own `.git`, those up to
 * `NESTED_REPOSITORY_DEPTH` folders below it (not looked for in node_modules or in a `.git`), their submodules'
 * and worktrees' git folders, and `.git` files (a gitdir pointer). Their `GIT_CONTROL_ENTRIES` are bound read-only
 * (a missing hooks folder is made, empty, and a missing commondir naming the repository's own folder, to be), and each
 * `.git` and the folders between the workspace and it are pinned, so that a tool cannot move a repository aside and put
 * another in its place. A `.git` that is a symbolic link refuses the launch. A repository a tool makes after the launch
 * is not covered.
 */
export function repositoryGuards(workspace: string): RepositoryGuards {
  const readOnly: string[] = [];
  const pinned = new Set<string>();
  let repositories = 0;
  let read = 0;
  const tooMany = (what: string): RepositoryGuards => ({
    ok: false,
    reason: `the workspace ${workspace} holds ${what} within ${NESTED_REPOSITORY_DEPTH} folders of it, more than the sandbox protects (each repository's .git/config and .git/hooks are made read-only for tools, as what git runs on the host)`,
  });
  const entriesOf = (folder: string): Dirent[] | undefined => {
    read++;
    try {
      return readdirSync(folder, { withFileTypes: true });
    } catch {
      return undefined;
    }
  };
  const pin = (path: string): void => {
    for (const folder of [...foldersFrom(workspace, path), path]) pinned.add(folder);
  };
  // a git folder: its control entries, then its submodules' and worktrees' git folders, as deep as they go
  const guarded = new Set<string>();
  const guardGitFolder = (gitFolder: string, worktree = false): boolean => {
    // a worktree's git folder is reached from its repository and from its checkout's `.git` file
    if (guarded.has(gitFolder)) return true;
    guarded.add(gitFolder);
    if (++repositories > MAX_REPOSITORIES) return false;
    const entries = entriesOf(gitFolder) ?? [];
    for (const entry of entries) if (GIT_CONTROL_ENTRIES.includes(entry.name)) readOnly.push(join(gitFolder, entry.name));
    // a repository without a hooks folder (cloned with an empty template): a tool would make one and plant a hook
    // there, so an empty one is made now, as `git init` makes it, to be shown read-only (a worktree's are its repository's)
    const has = (name: string): boolean => entries.some((entry) => entry.name === name);
    if (!worktree && has('config') && !has('hooks')) {
      try {
        mkdirSync(join(gitFolder, 'hooks'), { mode: 0o755 });
        readOnly.push(join(gitFolder, 'hooks'));
      } catch {
        // a repository the gateway cannot write is none a tool can write either
      }
    }
    // likewise a commondir naming the repository's own folder, where a tool would write one naming a folder of its own
    if (!worktree && has('config') && !has('commondir')) {
      try {
        writeFileSync(join(gitFolder, 'commondir'), OWN_COMMON_FOLDER, { flag: 'wx', mode: 0o644 });
        readOnly.push(join(gitFolder, 'commondir'));
      } catch {
        // as above
      }
    }
    for (const holder of ['modules', 'worktrees']) {
      if (!entries.some((entry) => entry.name === holder && entry.isDirectory())) continue;
      const stack = [join(gitFolder, holder)];
      while (stack.length > 0) {
        if (read > MAX_FOLDERS_READ) return true;
        const folder = stack.pop()!;
        const inner = entriesOf(folder) ?? [];
        // a git folder of its own holds HEAD; a submodule named a/b sits in modules/a/b
        if (folder !== join(gitFolder, holder) && inner.some((entry) => entry.name === 'HEAD')) {
          if (!guardGitFolder(folder, holder === 'worktrees')) return false;
          continue;
        }
        for (const entry of inner) if (entry.isDirectory()) stack.push(join(folder, entry.name));
      }
    }
    return true;
  };
  let level = [workspace];
  for (let depth = 0; depth <= NESTED_REPOSITORY_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (read > MAX_FOLDERS_READ) return tooMany(`more than ${MAX_FOLDERS_READ} folders`);
      // at the deepest level only a .git is looked for: one lstat, not a listing (most of the walk's cost)
      const entries = depth < NESTED_REPOSITORY_DEPTH ? entriesOf(folder) : gitEntryOf(folder);
      if (entries === undefined) continue;
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.name === '.git') {
          if (entry.isDirectory()) {
            if (!guardGitFolder(path)) return tooMany(`more than ${MAX_REPOSITORIES} git repositories`);
            pin(path);
          } else if (entry.isFile()) {
            // `gitdir: …`: rewritten, it would lead git to a config of the tool's own
            readOnly.push(path);
            pin(folder);
            // and the git folder it names, when the workspace holds it (`git init --separate-git-dir`: review O, O11)
            const target = gitFileTarget(path);
            if (target !== undefined && isInside(target, workspace) && target !== workspace) {
              if (!guardGitFolder(target)) return tooMany(`more than ${MAX_REPOSITORIES} git repositories`);
              pin(target);
            }
          } else if (entry.isSymbolicLink()) {
            // git follows it; a bind would land on its target and leave the link free to be pointed elsewhere (review O, O6)
            return { ok: false, reason: `the workspace ${workspace} holds ${path}, a symbolic link the sandbox cannot protect (git follows it to the config and hooks it runs on the host); make it a folder or a gitdir file (git init --separate-git-dir)` };
          }
        } else if (entry.isDirectory() && entry.name !== 'node_modules' && depth < NESTED_REPOSITORY_DEPTH) next.push(path);
      }
    }
    level = next;
  }
  return { ok: true, readOnly, pinned: [...pinned].filter((folder) => folder !== workspace).sort((a, b) => a.length - b.length) };
}

/** The real git folder a `.git` file (`gitdir: PATH`, relative to its folder) names, or undefined when it names none. */
function gitFileTarget(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').slice(0, 4096);
    const named = /^gitdir: *(.+?)\s*$/m.exec(text)?.[1];
    if (named === undefined) return undefined;
    const target = realpathSync(isAbsolute(named) ? named : join(dirname(file), named));
    return lstatSync(target).isDirectory() ? target : undefined;
  } catch {
    return undefined;
  }
}

/** A folder's `.git` as a listing's entry would show it, or none. */
function gitEntryOf(folder: string): Dirent[] | undefined {
  const info = lstatSync(join(folder, '.git'), { throwIfNoEntry: false });
  if (info === undefined) return undefined;
  return [Object.assign(info, { name: '.git', parentPath: folder, path: folder }) as unknown as Dirent];
}

/** The folders strictly between `outer` and `path`, outermost first. */
function foldersFrom(outer: string, path: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(path); folder !== outer && isInside(folder, outer); folder = dirname(folder)) folders.unshift(folder);
  return folders;
}

/**
 * Why the gatekeeper's write_file may not write `path` (real, inside `root`), or undefined: the rule the sandbox
 * applies to processes, for a method that runs outside it. Inside any `.git` (its config, hooks, a submodule's or a
 * `.git` file: what git runs on the host, for whoever uses the repository next), a read-only path of the sandbox
 * (the tools repository, this package's own files, a PATH folder: see `readOnlyInside`).
 */
export function writeRefusal(path: string, root: string, readOnly: readonly string[]): string | undefined {
  const inRoot = relative(root, path).split(sep);
  if (inRoot.includes('.git')) {
    return `it is inside a git repository's .git (its config and hooks name programs git runs on the host, outside any sandbox, for whoever uses the repository next); the sandbox shows them read-only to tools too`;
  }
  const held = readOnlyInside(root, [...readOnly, ...pathFolders()]).find((folder) => isInside(path, folder));
  if (held === undefined) return undefined;
  return `it is inside ${held}, which the sandbox shows read-only to tools (the tools repository, this gateway's own files or a folder on its PATH: what the gateway serves or runs next)`;
}
