import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

// Committing many files makes git start `gc --auto` in the background: it writes a pack, then deletes the
// loose objects it packed (and, repacking again, the packs it replaced). A scan that listed the object
// store before that must still read every object: it looks again before calling one missing.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

async function repositoryOf(count: number): Promise<string> {
  const root = join(temp.path, 'repo');
  await initRepository(root);
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) files[`tools/t${index}/TOOL.hdlp`] = makeToolYaml(`t${index}`);
  await commitFiles(root, files);
  return root;
}

describe('Scanner over a local repository that git repacks meanwhile', () => {
  it('reads every definition of a snapshot taken before its loose objects moved into a pack', async () => {
    const root = await repositoryOf(30);
    const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
    const snapshot = await scanner.source.snapshot();
    // what gc --auto does: pack everything, drop the loose copies
    await git(root, 'repack', '-a', '-d', '-q');
    await git(root, 'prune-packed');
    const entries = await snapshot.listEntries();
    const files = await Promise.all(entries.map((entry) => snapshot.read(entry)));
    expect(files.map((file) => ('content' in file ? file.path : file.code))).toEqual(entries.map((entry) => `tools/${entry.folder}/TOOL.hdlp`));
  });

  it('reads every definition of a snapshot taken before the pack it read from was replaced', async () => {
    const root = await repositoryOf(30);
    await git(root, 'repack', '-a', '-d', '-q');
    const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
    const snapshot = await scanner.source.snapshot();
    await commitFiles(root, { 'tools/extra/TOOL.hdlp': makeToolYaml('extra') });
    // a full repack writes one new pack and deletes the old one, whose objects it copied
    await git(root, 'repack', '-a', '-d', '-f', '-q');
    const entries = await snapshot.listEntries();
    const files = await Promise.all(entries.map((entry) => snapshot.read(entry)));
    expect(files.every((file) => 'content' in file)).toBe(true);
    expect(entries).toHaveLength(30);
  });

  it('scans the same index while git packs and unpacks its objects again and again beside it', async () => {
    const root = await repositoryOf(200);
    const gitdir = join(root, '.git');
    const expected = (await new Scanner({ repo: root, cacheDir: join(temp.path, 'first') }).scan()).tools.map((tool) => tool.name);
    expect(expected).toHaveLength(200);
    // every object stays readable throughout, as under git's own gc: the loose copies come back before the
    // pack goes, and the pack is written before the loose copies go. Like git, nothing here writes a file a
    // reader can see half-written: the loose copies come back as hard links, the pack is renamed into place.
    const loose = join(temp.path, 'loose');
    await new Promise<void>((resolve, reject) => spawn('cp', ['-a', join(gitdir, 'objects'), loose]).once('error', reject).once('exit', () => resolve()));
    await rm(join(loose, 'pack'), { recursive: true, force: true });
    await git(gitdir, 'repack', '-q');
    await git(gitdir, 'prune-packed');
    const stopFile = join(temp.path, 'stop');
    const rounds = join(temp.path, 'rounds');
    const housekeeping = spawn('sh', ['-c', `while [ ! -e "$STOP" ]; do cp -alf "$LOOSE/." objects/ && rm -f objects/pack/* && git repack -a -d -q && git prune-packed && echo >> "$ROUNDS"; done`], {
      cwd: gitdir, stdio: 'ignore', env: { ...process.env, GIT_DIR: '.', STOP: stopFile, LOOSE: loose, ROUNDS: rounds },
    });
    const stopped = new Promise<void>((resolve) => housekeeping.once('exit', () => resolve()));
    try {
      for (let scan = 0; scan < 6; scan++) {
        const index = await new Scanner({ repo: root, cacheDir: join(temp.path, `cache-${scan}`) }).scan();
        expect(index.errors).toEqual([]);
        expect(index.tools.map((tool) => tool.name)).toEqual(expected);
      }
    } finally {
      await writeFile(stopFile, '');
      await stopped;
    }
    expect((await readFile(rounds, 'utf8')).length).toBeGreaterThan(0);
  });
});
