import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FOLDER_MODE } from '../private-cache.js';

/**
 * The git directory of a fresh single-branch clone, as `git clone --bare --single-branch` lays it out but with the
 * remote's branch under `refs/remotes/origin` too (as the fetches expect): HEAD on the branch, the remote and its
 * refspec in `config`. Its objects come from the one pack written next.
 */
export async function initClone(gitdir: string, url: string, branch: string): Promise<void> {
  for (const folder of ['objects/pack', 'objects/info', 'refs/heads', 'refs/tags', 'refs/remotes/origin']) await mkdir(join(gitdir, folder), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const config = [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tfilemode = true',
    '\tbare = false',
    '\tlogallrefupdates = false',
    '[remote "origin"]',
    `\turl = ${url}`,
    `\tfetch = +refs/heads/${branch}:refs/remotes/origin/${branch}`,
    `[branch "${branch}"]`,
    '\tremote = origin',
    `\tmerge = refs/heads/${branch}`,
    '',
  ];
  await writeFile(join(gitdir, 'config'), config.join('\n'), 'utf8');
}

/**
 * How many commits a shallow boundary may hold: a deepen from one commit leaves a few. A server's answer naming more is
 * refused, and a clone whose `.git/shallow` holds more is started over (review Z4, F2: 4.5 million ids, 184 MB, were
 * written once and sent back by every later fetch, which failed for good).
 */
export const MAX_SHALLOW = 1000;

// one id and its line feed a commit
const MAX_SHALLOW_FILE = MAX_SHALLOW * 41;

/** Whether the clone's `.git/shallow` is larger than any boundary this scanner writes: the clone is then started over. */
export async function shallowImplausible(gitdir: string): Promise<boolean> {
  const size = await stat(join(gitdir, 'shallow')).then((found) => found.size, () => 0);
  return size > MAX_SHALLOW_FILE;
}

/** The commits a shallow clone holds without their parents (`.git/shallow`, one id a line; none when the file is absent). */
export async function readShallow(gitdir: string): Promise<string[]> {
  if (await shallowImplausible(gitdir)) throw new Error(`the clone's .git/shallow names more than ${MAX_SHALLOW} commits; the next scan starts the clone over`);
  const text = await readFile(join(gitdir, 'shallow'), 'latin1').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
  return text.split('\n').filter((line) => /^[0-9a-f]{40}$/.test(line));
}

/** How many packs the clone holds: each fetch adds one. */
export async function packCount(gitdir: string): Promise<number> {
  const names = await readdir(join(gitdir, 'objects', 'pack')).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.pack')).length;
}
