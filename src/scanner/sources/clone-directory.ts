import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The git directory of a fresh single-branch clone, as `git clone --bare --single-branch` lays it out but with the
 * remote's branch under `refs/remotes/origin` too (as the fetches expect): HEAD on the branch, the remote and its
 * refspec in `config`. Its objects come from the one pack written next.
 */
export async function initClone(gitdir: string, url: string, branch: string): Promise<void> {
  for (const folder of ['objects/pack', 'objects/info', 'refs/heads', 'refs/tags', 'refs/remotes/origin']) await mkdir(join(gitdir, folder), { recursive: true });
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

/** The commits a shallow clone holds without their parents (`.git/shallow`, one id a line; none when the file is absent). */
export async function readShallow(gitdir: string): Promise<string[]> {
  const text = await readFile(join(gitdir, 'shallow'), 'latin1').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
  return text.split('\n').filter((line) => /^[0-9a-f]{40}$/.test(line));
}

/** How many packs the clone holds: each fetch adds one. */
export async function packCount(gitdir: string): Promise<number> {
  const names = await readdir(join(gitdir, 'objects', 'pack')).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.pack')).length;
}
