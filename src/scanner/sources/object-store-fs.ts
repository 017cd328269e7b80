import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/** The file system client isomorphic-git is given. */
export interface PromiseFs {
  promises: typeof fsp;
}

/** A snapshot's view of the object store, and a way to look at the store again after git repacked it. */
export interface ObjectStoreFs extends PromiseFs {
  /** how many times the listing was read again: a read that failed under an older one may retry */
  readonly generation: number;
  /** lists the loose-object folders and the packs again (once for all readers that saw the same generation fail) */
  refresh(seen: number): Promise<void>;
  /** whether the folder a loose object of this id would sit in was listed */
  mayBeLoose(oid: string): boolean;
}

// one shared, stack-less "not found": isomorphic-git only reads its code
const NOT_FOUND = Object.assign(Object.create(Error.prototype) as Error, { code: 'ENOENT', message: 'ENOENT: no such loose object' });

interface Listing {
  looseDirs: Set<string>;
  packs: string[];
}

async function listObjects(objects: string, packDir: string): Promise<Listing> {
  const [names, packs] = await Promise.all([fsp.readdir(objects).catch(() => [] as string[]), fsp.readdir(packDir).catch(() => [] as string[])]);
  return { looseDirs: new Set(names.filter((name) => /^[0-9a-f]{2}$/.test(name))), packs };
}

/**
 * A read view of one git directory for one snapshot. On every API call isomorphic-git probes the client by calling
 * `readFile()` with no path (twice) and stats the git directory; on every object read it looks for a loose file
 * first and re-lists the pack folder. At 10,000 tools that is some 80,000 file system calls, most of them failing
 * with a freshly built Node error. This view answers the probe with a shared rejection, stats the git directory once,
 * lists both object folders once (after the ref is resolved, so every object of that commit is already written) and
 * answers a missing loose object at once. Git's own housekeeping (`gc --auto` after a large commit) may move loose
 * objects into a new pack, or replace a pack, after that listing: `refresh` lists them again. Writes pass through untouched.
 */
export async function snapshotFs(gitdir: string): Promise<ObjectStoreFs> {
  const objects = join(gitdir, 'objects');
  const packDir = join(objects, 'pack');
  let listing = await listObjects(objects, packDir);
  let generation = 0;
  let refreshing: Promise<void> | undefined;
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
      if (/^[0-9a-f]{2}\/[0-9a-f]{38}$/.test(rest) && !listing.looseDirs.has(rest.slice(0, 2))) return Promise.reject(NOT_FOUND);
    }
    return fsp.readFile(path, options);
  }) as typeof fsp.readFile;
  promises.readdir = ((path: Parameters<typeof fsp.readdir>[0], options?: Parameters<typeof fsp.readdir>[1]) =>
    path === packDir && options === undefined ? Promise.resolve([...listing.packs]) : fsp.readdir(path, options as never)) as typeof fsp.readdir;
  return {
    promises,
    get generation() {
      return generation;
    },
    mayBeLoose: (oid) => listing.looseDirs.has(oid.slice(0, 2)),
    refresh(seen) {
      if (seen !== generation) return refreshing ?? Promise.resolve();
      generation += 1;
      refreshing = listObjects(objects, packDir).then((fresh) => {
        listing = fresh;
      });
      return refreshing;
    },
  };
}
