import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackStore } from './pack-store.js';

/** What one snapshot saw of a git directory's objects, and a way to look again after git repacked them. */
export interface ObjectListing {
  /** how many times the listing was read again: a read that failed under an older one may retry */
  readonly generation: number;
  /** lists the loose-object folders and the packs again (once for all readers that saw the same generation fail) */
  refresh(seen: number): Promise<void>;
  /** whether the folder a loose object of this id would sit in was listed */
  mayBeLoose(oid: string): boolean;
}

async function looseFolders(objects: string): Promise<Set<string>> {
  const names = await readdir(objects).catch(() => [] as string[]);
  return new Set(names.filter((name) => /^[0-9a-f]{2}$/.test(name)));
}

/**
 * Lists the loose-object folders and the packs once per snapshot (after the ref is resolved, so every object of that
 * commit is already written), so that a missing loose object is answered without a failing `open` per object. Git's
 * own housekeeping (`gc --auto` after a large commit) may move loose objects into a new pack, or replace a pack, after
 * that listing: `refresh` lists both again.
 */
export async function listObjects(gitdir: string, packs: PackStore): Promise<ObjectListing> {
  const objects = join(gitdir, 'objects');
  let [loose] = await Promise.all([looseFolders(objects), packs.list()]);
  let generation = 0;
  let refreshing: Promise<void> | undefined;
  return {
    get generation() {
      return generation;
    },
    mayBeLoose: (oid) => loose.has(oid.slice(0, 2)),
    refresh(seen) {
      if (seen !== generation) return refreshing ?? Promise.resolve();
      generation += 1;
      refreshing = Promise.all([looseFolders(objects), packs.list()]).then(([fresh]) => {
        loose = fresh;
      });
      return refreshing;
    },
  };
}
