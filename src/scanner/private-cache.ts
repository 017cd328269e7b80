import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, realpathSync, renameSync, rmSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The scan cache (its stored scans, each source's clone and folder record, the search index's `.v8` files) is code: it
 * holds every tool's argv, target and the policies, and a warm start serves it as the reviewed registry. So it is
 * trusted exactly as far as its folder's owner, by the rule bin/hldp.js gives the code cache (review Z2-1, "cache16"):
 * this process's euid owns each folder (no symlink), and none is group- or world-writable. A cache folder that breaks
 * it — made by another user, shared, a /tmp-like sticky one — is not used: the process says which folder and why, and
 * keeps its cache in a private folder of its own for its lifetime (review Z10-2). The cache's own folders are made 0700.
 */
export const PRIVATE_FOLDER_MODE = 0o700;

// how deep under the cache's root folders are checked: the root, sources/ and search/, each source's folder and its
// folders (index/, clone/, folder-record/). Deeper ones are made by this process inside folders only it may write
const CHECKED_DEPTH = 3;

const decided = new Map<string, string>();

// what this program makes at the cache's root: each source's clone and stored scans, and the search index's files
const OWN_ENTRIES = ['sources', 'search'];

// an entry of the root moved aside to be removed (review Z15-2): never read, removed at the start that moved it or a later one
const ASIDE = '.distrusted-';
const isAside = (path: string, root: string): boolean => path.startsWith(join(root, ASIDE)) && !path.slice(join(root, ASIDE).length).includes('/');

/**
 * Makes again a cache a build before review Z10-2 left group-writable (made under umask 002: 0775 folders), which
 * every start would otherwise refuse for ever (review userZ8, M1). Only where the root is this user's folder, neither a
 * symbolic link nor sticky nor writable by others (a shared folder is refused as before), and every refusal below it
 * is of a folder of this user's writable by group: the root loses group write, this program's own entries in it are
 * removed whole — nothing that was in them is trusted — and made again 0700 by the scan that follows. Anything else in
 * the folder is left as it is. True when the cache may now be trusted.
 */
function rebuildGroupWritable(root: string, euid: number): boolean {
  // first every folder is looked at, and nothing changes unless each refusal is one this can mend
  const refused: string[] = [];
  const queue: Array<{ path: string; depth: number }> = [{ path: root, depth: 0 }];
  try {
    while (queue.length) {
      const { path, depth } = queue.shift()!;
      if (isAside(path, root)) continue;
      const stats = lstatSync(path);
      if (!stats.isDirectory() && !stats.isSymbolicLink()) continue;
      if (distrustedFolder(path, stats, euid) === undefined) {
        if (depth < CHECKED_DEPTH) for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory() || entry.isSymbolicLink()) queue.push({ path: join(path, entry.name), depth: depth + 1 });
        continue;
      }
      // this user's folder, writable by group alone (not others, not sticky), at the root or in an entry of the cache's own
      if (stats.isSymbolicLink() || stats.uid !== euid || (stats.mode & 0o1022) !== 0o020) return false;
      if (path === root) {
        refused.push(path);
        if (depth < CHECKED_DEPTH) for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory() || entry.isSymbolicLink()) queue.push({ path: join(path, entry.name), depth: depth + 1 });
      } else {
        const entry = OWN_ENTRIES.find((name) => path === join(root, name) || path.startsWith(join(root, name, '/')));
        if (entry === undefined) return false;
        // its whole entry goes: nothing below it is looked at
        if (!refused.includes(join(root, entry))) refused.push(join(root, entry));
        for (let at = queue.length - 1; at >= 0; at -= 1) if (queue[at]!.path.startsWith(join(root, entry, '/'))) queue.splice(at, 1);
      }
    }
    const fd = privateRoot(root, euid);
    if (fd === undefined) return false;
    try {
      // moved aside whole, in the root only this user may now change: a rename moves the entry, nothing below it is read
      for (const name of OWN_ENTRIES) if (refused.includes(join(root, name))) renameSync(inRoot(fd, root, name), inRoot(fd, root, `${ASIDE}${randomBytes(8).toString('hex')}`));
      removeAside(fd, root);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  return firstDistrusted(root, euid) === undefined;
}

/**
 * The cache's root, opened without following a symbolic link and made writable by this user alone through that
 * descriptor (review Z15-2: a chmod by path after an lstat follows a link swapped in between, where the root's parent
 * is writable by another user, and made the link's target 0755); undefined unless the folder opened is this user's,
 * neither sticky nor writable by others. Close it with `closeSync`.
 */
function privateRoot(root: string, euid: number): number | undefined {
  const fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const stats = fstatSync(fd);
    if (!stats.isDirectory() || stats.uid !== euid || (stats.mode & 0o1002) !== 0) throw new Error('not a private root');
    if (stats.mode & 0o020) fchmodSync(fd, stats.mode & 0o7755);
    if ((fstatSync(fd).mode & 0o022) !== 0) throw new Error('still writable by others');
    return fd;
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** Removes what an earlier start moved aside and could not remove (see {@link removeAside}), in a root already trusted. */
function removeLeftAside(root: string, euid: number): void {
  try {
    if (!readdirSync(root).some((name) => name.startsWith(ASIDE))) return;
    const fd = privateRoot(root, euid);
    if (fd === undefined) return;
    try {
      removeAside(fd, root);
    } finally {
      closeSync(fd);
    }
  } catch {
    // left for the next start
  }
}

/** `name` in the root open at `fd`, resolved from that folder itself (Linux's /proc magic link), else by its path. */
const inRoot = (fd: number, root: string, name: string): string => (existsSync(`/proc/self/fd/${fd}`) ? `/proc/self/fd/${fd}/${name}` : join(root, name));

/**
 * Removes what was moved aside in the root open at `fd`. Moved into a folder only this user writes, such a tree is
 * still not this user's alone: its folders stay writable by the group, and a member of it may hold one of them open (a
 * descriptor, a working directory) or walk to it (the root keeps the group's read and search), so it can still rename
 * a folder in it and put a symbolic link to this user's home in its place while the removal walks it (review Z15-2:
 * Node's rmSync walks by path, `folder/child`, and removed the user's own files through such a link). So the tree is
 * removed by coreutils `rm -rf`, which walks with fts: each folder opened with O_NOFOLLOW from its parent's descriptor
 * and its entries unlinked from that descriptor — a folder swapped for a link is met as the link, which is removed (or
 * rm says it cannot remove the folder), never followed. At worst the group member's own files in the tree go, or rm
 * stops and the tree stays aside, unread by this program, for the next start to remove.
 */
function removeAside(fd: number, root: string): void {
  const names = readdirSync(inRoot(fd, root, '')).filter((name) => name.startsWith(ASIDE));
  if (names.length === 0) return;
  // rm gets the root as its descriptor 3, so its path goes through the folder opened here, not through the root's name again
  const atThree = existsSync(`/proc/self/fd/${fd}`);
  spawnSync('rm', ['-rf', '--', ...names.map((name) => (atThree ? `/proc/self/fd/3/${name}` : join(root, name)))], { stdio: ['ignore', 'ignore', 'ignore', fd], timeout: 300_000, killSignal: 'SIGKILL' });
}

/** Why `stats` (an lstat of `path`) may not hold a cache `euid` trusts, with what would fix it; undefined when it may. */
export function distrustedFolder(path: string, stats: Stats, euid: number, variable = 'HLDP_CACHE_DIR'): string | undefined {
  const quoted = JSON.stringify(path);
  if (stats.isSymbolicLink()) {
    let target = '';
    try {
      target = ` (to ${JSON.stringify(realpathSync(path))})`;
    } catch {
      // a dangling link: its target is not said
    }
    return `is a symbolic link${target}, which is not followed: point ${variable} at the folder itself`;
  }
  if (!stats.isDirectory()) return `is not a folder: point ${variable} at a folder of this user's`;
  if (stats.uid !== euid) return `is owned by uid ${stats.uid}, not by this user (uid ${euid}): chown -R ${euid} ${quoted}, or point ${variable} at a folder of this user's`;
  if ((stats.mode & 0o022) !== 0) {
    const who = stats.mode & 0o020 ? (stats.mode & 0o002 ? 'group and others' : 'group') : 'others';
    return `is writable by ${who} (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}): chmod -R go-w ${quoted}`;
  }
  return undefined;
}

/** The first folder of the cache at `root` (to {@link CHECKED_DEPTH}) this user may not trust, and why. */
function firstDistrusted(root: string, euid: number): { path: string; why: string } | undefined {
  const queue: Array<{ path: string; depth: number }> = [{ path: root, depth: 0 }];
  while (queue.length) {
    const { path, depth } = queue.shift()!;
    if (isAside(path, root)) continue;
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { path, why: `cannot be read (${(error as Error).message})` };
    }
    // a file where the folder should be is no one's cache: the cache's writes fail and the scan is held in memory, as before
    if (!stats.isDirectory() && !stats.isSymbolicLink()) continue;
    const why = distrustedFolder(path, stats, euid);
    if (why !== undefined) return { path, why };
    if (depth + 1 > CHECKED_DEPTH) continue;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory() || entry.isSymbolicLink()) queue.push({ path: join(path, entry.name), depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * The cache folder to use for `root`: `root` itself (made 0700 when missing) when every folder of it is this user's
 * and no one else may write it, else a private folder made for this process, after saying on stderr which folder was
 * refused and why. Decided once a process for each root.
 */
export function trustedCacheDir(root: string, warn: (message: string) => void = (message) => process.stderr.write(`hldp: ${message}\n`)): string {
  const known = decided.get(root);
  if (known !== undefined) return known;
  const euid = process.geteuid?.();
  let chosen = root;
  if (euid !== undefined) {
    try {
      mkdirSync(root, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    } catch {
      // not made (a file there, no permission): the check below says why, or the cache's own writes fail as before
    }
    let refused = firstDistrusted(root, euid);
    if (!refused) removeLeftAside(root, euid);
    else if (/writable by group \(/.test(refused.why)) {
      const rebuilt = rebuildGroupWritable(root, euid);
      if (rebuilt) warn(`the scan cache folder ${JSON.stringify(refused.path)} ${refused.why.replace(/: chmod -R go-w .*$/, '')}, as a build before review Z10-2 left its folders under umask 002: nothing in it is trusted — the cache's own entries were moved aside and removed, and are made again private (0700) by this start, which scans afresh once`);
      refused = rebuilt ? undefined : firstDistrusted(root, euid);
    }
    if (refused) {
      const own = mkdtempSync(join(tmpdir(), 'hldp-cache-'));
      chosen = own;
      // the process's own cache is its alone: removed when it ends, so each refused start does not leave a whole scan in $TMPDIR
      process.once('exit', () => rmSync(own, { recursive: true, force: true }));
      warn(`the scan cache folder ${JSON.stringify(refused.path)} ${refused.why}. Whoever can write it decides what the tools run, so it is not used: this process keeps its cache in ${JSON.stringify(chosen)} (removed when it ends; every start scans afresh until this is fixed)`);
    }
  }
  decided.set(root, chosen);
  return chosen;
}
