import { lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, type Stats } from 'node:fs';
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
    const refused = firstDistrusted(root, euid);
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
