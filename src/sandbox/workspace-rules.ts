import { lchownSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { controlText } from './control-text.js';
import { configPaths, fromTop } from './git-config-paths.js';
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
export type RepositoryGuards =
  | { ok: true; /** bound read-only */ readOnly: string[]; /** bound onto themselves, outermost first: rename(2) refuses a mount point */ pinned: string[]; /** every git folder found: the file methods write in none */ gitFolders: string[] }
  | { ok: false; reason: string };

/**
 * The control entries a git folder may lack that git reads once they exist, made (empty, or naming the folder itself)
 * so that they can be shown read-only: a tool would otherwise create them. `config.worktree` is read, main folder and
 * linked worktree alike, whenever the (read-only) config turns extensions.worktreeConfig on, by hand or by `git
 * sparse-checkout`, which writes the main folder's but not those of worktrees added later (review P, P2); an empty
 * one is an empty config to git 2.39, as no file is. A worktree's hooks, config and commondir are its repository's.
 */
const MADE_WHEN_MISSING: readonly { name: string; folder: boolean; worktree: boolean; text: string }[] = [
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

/**
 * Each git repository in `root` (the workspace, or a declared writable path: review P, P7) as found now: a git folder
 * found by what it holds (`isGitFolder`: the root itself, a `.git`, a bare repository) up to
 * `NESTED_REPOSITORY_DEPTH` folders below it (not looked for in node_modules or inside a git folder), their
 * submodules' and worktrees' git folders, and `.git` files (a gitdir pointer) with the git folder they name. Their
 * `GIT_CONTROL_ENTRIES` are bound read-only (the missing ones git would read are made first: `MADE_WHEN_MISSING`, owned
 * as their git folder), and each git folder and the folders between the root and it are pinned, so that a tool cannot
 * move a repository aside and put another in its place. A `.git`, or a control entry, that is a symbolic link
 * refuses the launch, as does passing a bound anywhere (fail closed). A repository a tool makes after the launch is
 * not covered. `make: false` (the file methods) looks without making anything.
 */
export function repositoryGuards(root: string, options: { make?: boolean; roots?: readonly string[] } = {}): RepositoryGuards {
  const make = options.make !== false;
  const roots = options.roots ?? [root];
  const readOnly: string[] = [];
  const pinned = new Set<string>();
  let repositories = 0;
  let read = 0;
  const tooMany = (what: string): string =>
    `${root} holds ${what} within ${NESTED_REPOSITORY_DEPTH} folders of it, more than the sandbox protects (each repository's .git/config and .git/hooks are made read-only for tools, as what git runs on the host)`;
  const tooManyFolders = (): string => tooMany(`more than ${MAX_FOLDERS_READ} folders (its git folders' included)`);
  const tooManyRepositories = (): string => tooMany(`more than ${MAX_REPOSITORIES} git repositories`);
  const entriesOf = (folder: string): Dirent[] | undefined => {
    read++;
    try {
      return readdirSync(folder, { withFileTypes: true });
    } catch {
      return undefined;
    }
  };
  const pin = (path: string): void => {
    for (const folder of [...foldersFrom(root, path), path]) pinned.add(folder);
  };
  // a path git's own settings send it to (a hooks folder, an included config): read-only where a tool could write it,
  // made first where it is a missing hooks folder; the reason it cannot be guarded, or undefined
  const protectNamed = (gitFolder: string, named: string, what: string, file: boolean): string | undefined => {
    const namedIn = roots.find((folder) => isInside(named, folder));
    let real: string | undefined;
    try {
      real = realpathSync(named);
    } catch {
      real = undefined;
    }
    if (real === undefined) {
      if (namedIn === undefined) return undefined;
      if (file) return `${what} names ${named}, which does not exist: a tool could make it, and git would read it on the host; make it (empty) or remove the setting`;
      if (make && !makeOwnedAs(gitFolder, named, true, '')) return `${what} names the hooks folder ${named}, which does not exist and could not be made: a tool could make it and plant hooks; make it`;
      real = named;
    }
    if (namedIn !== undefined && real !== named) return `${what} names ${named}, through a symbolic link the sandbox cannot protect (a tool could point it elsewhere); name the real path ${real}`;
    const holder = roots.find((folder) => isInside(real, folder));
    if (holder === undefined) return undefined;
    if (real === holder) return `${what} names ${real}, a folder tools may write as a whole; name a folder inside it`;
    for (const folder of foldersFrom(holder, real)) pinned.add(folder);
    readOnly.push(real);
    return undefined;
  };
  // what a git folder's config and config.worktree (and the files they include) send git to: core.hooksPath, a
  // relative one from the working tree's top (each worktree's own), and include.path / includeIf.*.path
  const guardConfigPaths = (gitFolder: string, linked: boolean, knownTop: string | undefined): string | undefined => {
    const common = linked ? commonFolderOf(gitFolder) : gitFolder;
    const files = [...(common === undefined ? [] : [join(common, 'config')]), join(gitFolder, 'config.worktree')];
    const { hooksPaths, includes } = configPaths(files);
    if (hooksPaths.length === 0 && includes.length === 0) return undefined;
    for (const included of includes) {
      const refused = protectNamed(gitFolder, included, `${join(common ?? gitFolder, 'config')} (include.path or includeIf)`, true);
      if (refused !== undefined) return refused;
    }
    const top = knownTop ?? workingTreeTop(gitFolder, linked, common);
    for (const hooksPath of hooksPaths) {
      const refused = protectNamed(common ?? gitFolder, fromTop(top, hooksPath), `${join(common ?? gitFolder, 'config')}'s core.hooksPath`, false);
      if (refused !== undefined) return refused;
    }
    return undefined;
  };
  // a git folder: its control entries, then its submodules' and worktrees' git folders, as deep as they go; the
  // reason it cannot be guarded, or undefined
  const guarded = new Set<string>();
  const guardGitFolder = (gitFolder: string, worktree = false, top?: string): string | undefined => {
    // a worktree's git folder is reached from its repository and from its checkout's `.git` file
    if (guarded.has(gitFolder)) return undefined;
    guarded.add(gitFolder);
    if (++repositories > MAX_REPOSITORIES) return tooManyRepositories();
    const entries = entriesOf(gitFolder) ?? [];
    for (const entry of entries) {
      if (!GIT_CONTROL_ENTRIES.includes(entry.name) && entry.name !== 'modules' && entry.name !== 'worktrees') continue;
      // a bind lands on a link's target and leaves the link, in the writable git folder, free to be replaced by a
      // folder of the tool's own (review P, P16): refused, as a symbolic link `.git` is
      if (entry.isSymbolicLink() && entry.name === 'hooks') {
        // shared hooks (`.git/hooks -> ../.githooks`): the folder it names is a hooks folder, read-only; and the link,
        // which no bind can hold (a bind lands on its target), stays because the whole git folder is read-only
        const refused = protectNamed(gitFolder, resolve(gitFolder, readlinkSync(join(gitFolder, 'hooks'))), `the symbolic link ${join(gitFolder, 'hooks')}`, false);
        if (refused !== undefined) return refused;
        readOnly.push(gitFolder);
        continue;
      }
      if (entry.isSymbolicLink()) {
        return `${root} holds ${join(gitFolder, entry.name)}, a symbolic link the sandbox cannot protect (a tool could replace the link, and git would run what it points at on the host); make it a real ${entry.name === 'modules' || entry.name === 'worktrees' ? 'folder' : 'file'}`;
      }
      if (GIT_CONTROL_ENTRIES.includes(entry.name)) readOnly.push(join(gitFolder, entry.name));
    }
    const has = (name: string): boolean => entries.some((entry) => entry.name === name);
    // a linked worktree's git folder holds no objects (its commondir names them), however it was reached: from its
    // repository's worktrees/, or first from its checkout's `.git` file
    const linked = worktree || (has('commondir') && !entries.some((entry) => entry.name === 'objects' && entry.isDirectory()));
    // only in what git opens as a repository: a folder merely named .git is left as it is
    const repository = isGitFolder(gitFolder, entries);
    if (make && repository) {
      for (const missing of MADE_WHEN_MISSING) {
        if (linked && !missing.worktree) continue;
        if (has(missing.name)) continue;
        const path = join(gitFolder, missing.name);
        if (makeOwnedAs(gitFolder, path, missing.folder, missing.text)) readOnly.push(path);
      }
    }
    if (linked || repository) {
      const refused = guardConfigPaths(gitFolder, linked, top);
      if (refused !== undefined) return refused;
    }
    for (const holder of ['modules', 'worktrees']) {
      if (!entries.some((entry) => entry.name === holder && entry.isDirectory())) continue;
      const stack = [join(gitFolder, holder)];
      while (stack.length > 0) {
        // a tool can plant folders here (the git folder's own are writable): past the bound, the launch is refused,
        // never run with the rest unguarded (review P, P11)
        if (read > MAX_FOLDERS_READ) return tooManyFolders();
        const folder = stack.pop()!;
        const inner = entriesOf(folder) ?? [];
        // a git folder of its own holds HEAD, and config or commondir and gitdir (which, bound read-only, a tool cannot
        // remove to have it walked through instead); a submodule named a/b sits in modules/a/b
        if (folder !== join(gitFolder, holder) && inner.some((entry) => ['HEAD', 'config', 'commondir', 'gitdir'].includes(entry.name))) {
          const refused = guardGitFolder(folder, holder === 'worktrees');
          if (refused !== undefined) return refused;
          continue;
        }
        for (const entry of inner) if (entry.isDirectory()) stack.push(join(folder, entry.name));
      }
    }
    return undefined;
  };
  const fail = (reason: string): RepositoryGuards => ({ ok: false, reason });
  let level = [root];
  for (let depth = 0; depth <= NESTED_REPOSITORY_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (read > MAX_FOLDERS_READ) return fail(tooManyFolders());
      // at the deepest level only a .git is looked for, and HEAD: lstats, not a listing (most of the walk's cost)
      const entries = depth < NESTED_REPOSITORY_DEPTH ? entriesOf(folder) : gitEntryOf(folder);
      // a bare repository, a separate git folder, the root as a git folder: git opens it by what it holds (review P, P9)
      if (depth < NESTED_REPOSITORY_DEPTH ? entries !== undefined && isGitFolder(folder, entries) : isGitFolder(folder)) {
        const refused = guardGitFolder(folder);
        if (refused !== undefined) return fail(refused);
        pin(folder);
        continue;
      }
      if (entries === undefined) continue;
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.name === '.git') {
          if (entry.isDirectory()) {
            const refused = guardGitFolder(path);
            if (refused !== undefined) return fail(refused);
            pin(path);
          } else if (entry.isFile()) {
            // `gitdir: …`: rewritten, it would lead git to a config of the tool's own
            readOnly.push(path);
            pin(folder);
            // and the git folder it names, when the root holds it (`git init --separate-git-dir`: review O, O11)
            const target = gitFileTarget(path);
            if (target !== undefined && isInside(target, root) && target !== root) {
              const refused = guardGitFolder(target, false, folder);
              if (refused !== undefined) return fail(refused);
              pin(target);
            }
          } else if (entry.isSymbolicLink()) {
            // git follows it; a bind would land on its target and leave the link free to be pointed elsewhere (review O, O6)
            return fail(`${root} holds ${path}, a symbolic link the sandbox cannot protect (git follows it to the config and hooks it runs on the host); make it a folder or a gitdir file (git init --separate-git-dir)`);
          }
        } else if (entry.isDirectory() && entry.name !== 'node_modules' && depth < NESTED_REPOSITORY_DEPTH) next.push(path);
      }
    }
    level = next;
  }
  return { ok: true, readOnly, pinned: [...pinned].filter((folder) => folder !== root).sort((a, b) => a.length - b.length), gitFolders: [...guarded] };
}

/**
 * The guards of every root a tool may write (the workspace and its declared writable paths: review P, P7), merged;
 * refused where one is inside a git folder (its control entries beside it, writable).
 */
export function writableRootsGuards(roots: readonly string[], options: { make?: boolean } = {}): RepositoryGuards {
  roots = [...new Set(roots)];
  const found: Extract<RepositoryGuards, { ok: true }>[] = [];
  for (const root of roots) {
    const holder = enclosingGitFolder(root);
    if (holder !== undefined) return { ok: false, reason: `${root} is inside the git folder ${holder}, whose config and hooks name programs git runs on the host, outside any sandbox` };
    const guards = repositoryGuards(root, { ...options, roots });
    if (!guards.ok) return guards;
    found.push(guards);
  }
  return mergeGuards(found, roots);
}

/** Guards found in several roots as one (a root itself is never pinned: it is bound writable). */
export function mergeGuards(found: readonly Extract<RepositoryGuards, { ok: true }>[], roots: readonly string[]): Extract<RepositoryGuards, { ok: true }> {
  const union = (key: 'readOnly' | 'pinned' | 'gitFolders'): string[] => [...new Set(found.flatMap((guards) => guards[key]))];
  return { ok: true, readOnly: union('readOnly'), pinned: union('pinned').filter((folder) => !roots.includes(folder)).sort((a, b) => a.length - b.length), gitFolders: union('gitFolders') };
}

/** The nearest folder above `path` that git opens as a git folder (or named .git), or undefined. */
function enclosingGitFolder(path: string): string | undefined {
  for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) {
    if (basename(folder) === '.git' || isGitFolder(folder)) return folder;
  }
  return undefined;
}

/**
 * Makes a missing control entry of `gitFolder` as git would (a folder 0755, a file 0644), owned as the git folder
 * is: a root gateway's entries left root's in a user's repository kept its owner from installing a hook (review P,
 * P3). False when it could not be made: a folder the gateway cannot write is none a tool can write either.
 */
function makeOwnedAs(gitFolder: string, path: string, folder: boolean, text: string): boolean {
  try {
    if (folder) mkdirSync(path, { mode: 0o755 });
    else writeFileSync(path, text, { flag: 'wx', mode: 0o644 });
  } catch {
    return false;
  }
  try {
    const owner = statSync(gitFolder);
    if (process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0)) lchownSync(path, owner.uid, owner.gid);
  } catch {
    // made, and shown read-only: whose it is on the host does not change what a tool can do
  }
  return true;
}

/** The common git folder a linked worktree's git folder names in its commondir, or undefined. */
function commonFolderOf(gitFolder: string): string | undefined {
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
function workingTreeTop(gitFolder: string, linked: boolean, common: string | undefined): string {
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
function gitFileTarget(file: string): string | undefined {
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
