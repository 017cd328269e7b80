import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, type Stats } from 'node:fs';
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
    for (const path of refused) {
      // the root first: from then on no one but this user adds or renames an entry in it, so what is removed stays removed
      if (path === root) chmodSync(root, lstatSync(root).mode & 0o7755);
      // (rmSync removes a symbolic link, never what it points at)
      else rmSync(path, { recursive: true, force: true });
    }
  } catch {
    return false;
  }
  return firstDistrusted(root, euid) === undefined;
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
    if (refused && /writable by group \(/.test(refused.why)) {
      const rebuilt = rebuildGroupWritable(root, euid);
      if (rebuilt) warn(`the scan cache folder ${JSON.stringify(refused.path)} ${refused.why.replace(/: chmod -R go-w .*$/, '')}, as a build before review Z10-2 left its folders under umask 002: nothing in it is trusted — the cache's own entries were removed, and are made again private (0700) by this start, which scans afresh once`);
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
