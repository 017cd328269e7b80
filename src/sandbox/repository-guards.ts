import { lstatSync, readdirSync, readlinkSync, realpathSync, type Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { configPaths, fromTop } from './git-config-paths.js';
import { commonFolderOf, enclosingGitFolder, gitFileTarget, GIT_CONTROL_ENTRIES, isGitFolder, MADE_WHEN_MISSING, makeOwnedAs, workingTreeTop } from './git-folder.js';
import { isInside } from './workspace-rules.js';

// The git repositories in what a tool may write, and what of them the sandbox shows read-only or pins: one walk for
// the sandbox's binds (bubblewrap-arguments.ts) and the gatekeeper's file methods (write-refusal.ts).

/** How deep below the workspace nested repositories are looked for: `a/b/.git` is found, `a/b/c/.git` is not. */
export const NESTED_REPOSITORY_DEPTH = 2;
/** The most repositories (nested, submodules, worktrees) a launch protects; a workspace with more runs no local tool. */
export const MAX_REPOSITORIES = 100;
/** The most folders read looking for them; a workspace with more at those depths runs no local tool. */
export const MAX_FOLDERS_READ = 2000;

/** A git repository's protected entries found in a workspace, or why there are too many to protect. */
export type RepositoryGuards =
  | { ok: true; /** bound read-only */ readOnly: string[]; /** bound onto themselves, outermost first: rename(2) refuses a mount point */ pinned: string[]; /** every git folder found: the file methods write in none */ gitFolders: string[] }
  | { ok: false; reason: string };

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
      const made = make ? makeOwnedAs(gitFolder, named, true, '') : 'made';
      if (made === 'linked') return `${what} names the hooks folder ${named}, which does not exist, and a symbolic link is on the way to it (a tool may have swapped a folder for one): nothing was made there; make it, on a path of real folders`;
      if (made === 'failed') return `${what} names the hooks folder ${named}, which does not exist and could not be made: a tool could make it and plant hooks; make it`;
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
        const made = makeOwnedAs(gitFolder, path, missing.folder, missing.text);
        // a link on the way: the folder judged above is not the one there now (a tool swapped it): refused, not guessed
        if (made === 'linked') return `${gitFolder} changed while the launch looked at it: a symbolic link now stands on the way to ${path} (a tool may have swapped a folder for one); nothing was made, and no tool runs until it is a real folder again`;
        if (made === 'made') readOnly.push(path);
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
