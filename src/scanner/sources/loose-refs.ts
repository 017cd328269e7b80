import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PRIVATE_FOLDER_MODE } from '../private-cache.js';

/**
 * The refs of the clone a remote source keeps, read and written as files (git's loose refs), which is how the clone
 * writes them: a rescan's three ref reads and two writes through isomorphic-git cost ~5-30 ms on a loaded machine.
 * `undefined` means "not a plain loose ref here": the caller asks isomorphic-git, which knows packed refs.
 */

/** The branch `HEAD` names (`ref: refs/heads/<branch>`), if it names one. */
export async function headBranch(gitdir: string): Promise<string | undefined> {
  const text = await readFile(join(gitdir, 'HEAD'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : /^ref: refs\/heads\/(\S+)\n?$/.exec(text)?.[1];
}

/** The object id in a loose ref file. */
export async function readLooseRef(gitdir: string, ref: string): Promise<string | undefined> {
  const text = await readFile(join(gitdir, ref), 'latin1').catch(() => undefined);
  return text === undefined ? undefined : /^([0-9a-f]{40})\n?$/.exec(text)?.[1];
}

/** Points a loose ref at an object id, by rename: a reader sees the old id or the new one, never half a file. */
export async function writeLooseRef(gitdir: string, ref: string, oid: string): Promise<void> {
  const path = join(gitdir, ref);
  // a branch named with slashes (`release/1.2`) is a file in folders of its own
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const temporary = `${path}.${process.pid}.lock`;
  await writeFile(temporary, `${oid}\n`, 'latin1');
  await rename(temporary, path);
}
