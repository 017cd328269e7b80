import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/** The file system client isomorphic-git is given. */
export interface PromiseFs {
  promises: typeof fsp;
}

// one shared, stack-less "not found": isomorphic-git only reads its code
const NOT_FOUND = Object.assign(Object.create(Error.prototype) as Error, { code: 'ENOENT', message: 'ENOENT: no such loose object' });

/**
 * A read view of one git directory for one snapshot. On every API call isomorphic-git probes the client by calling
 * `readFile()` with no path (twice) and stats the git directory; on every object read it looks for a loose file
 * first and re-lists the pack folder. At 10,000 tools that is some 80,000 file system calls, most of them failing
 * with a freshly built Node error. This view answers the probe with a shared rejection, stats the git directory once,
 * lists both object folders once (after the ref is resolved, so every object of that commit is already written) and
 * answers a missing loose object at once. Writes pass through untouched.
 */
export async function snapshotFs(gitdir: string): Promise<PromiseFs> {
  const objects = join(gitdir, 'objects');
  const packDir = join(objects, 'pack');
  const looseDirs = new Set((await fsp.readdir(objects).catch(() => [] as string[])).filter((name) => /^[0-9a-f]{2}$/.test(name)));
  const packs = fsp.readdir(packDir).catch(() => [] as string[]);
  const gitdirStats = fsp.stat(gitdir);
  gitdirStats.catch(() => undefined);
  const loosePrefix = `${objects}/`;
  const promises = Object.create(fsp) as typeof fsp;
  promises.stat = ((path: Parameters<typeof fsp.stat>[0], options?: Parameters<typeof fsp.stat>[1]) =>
    path === gitdir && options === undefined ? gitdirStats : fsp.stat(path, options)) as typeof fsp.stat;
  promises.readFile = ((path: Parameters<typeof fsp.readFile>[0], options?: Parameters<typeof fsp.readFile>[1]) => {
    if (path === undefined) return Promise.reject(NOT_FOUND);
    if (typeof path === 'string' && path.startsWith(loosePrefix)) {
      const rest = path.slice(loosePrefix.length);
      if (/^[0-9a-f]{2}\/[0-9a-f]{38}$/.test(rest) && !looseDirs.has(rest.slice(0, 2))) return Promise.reject(NOT_FOUND);
    }
    return fsp.readFile(path, options);
  }) as typeof fsp.readFile;
  promises.readdir = ((path: Parameters<typeof fsp.readdir>[0], options?: Parameters<typeof fsp.readdir>[1]) =>
    path === packDir && options === undefined ? packs.then((names) => [...names]) : fsp.readdir(path, options as never)) as typeof fsp.readdir;
  return { promises };
}
