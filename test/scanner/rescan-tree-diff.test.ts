import { symlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingListings } from '../helpers/warm-cache.js';

// A rescan of a git repository compares the trees of the last commit scanned and the new one from the top, and reads
// only the entries whose folder changed, was added or removed; anything else (an entry that could not be read, the
// last commit gone) lists every entry as before. Whichever way, the index must be exactly a fresh scan's.

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;

beforeEach(async () => {
  temp = await makeTempDir('hldp-rescan-tree-');
  repo = join(temp.path, 'repo');
  await initRepository(repo);
});
afterEach(() => temp.cleanup());

const policy = (name: string, roles: string) => `name: ${name}\nauthor: TEST-001\nwhy: tests need ${name}\naccess:\n  - tools: [letters]\n    roles: [${roles}]\n`;
const toolset = (name: string, tools: string) => `name: ${name}\ndescription: work with ${name}\ntools: ${tools}\nauthor: TEST-001\nwhy: tests need ${name}\n`;

const START = {
  'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { group: 'letters' }),
  'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', aliases: '[bee]' }),
  'tools/gamma/TOOL.hdlp': makeToolYaml('gamma'),
  'toolsets/ops/TOOLSET.hdlp': toolset('ops', '[alpha]'),
  'policies/writes.hdlp': policy('writes', 'trusted'),
  'README.md': 'tools for tests\n',
};

/** The index without the moment it was made: what a rescan and a fresh scan of one commit must agree on. */
function comparable(index: ToolIndex): object {
  const { scanned_at: _scannedAt, ...rest } = index;
  return JSON.parse(JSON.stringify({ ...rest, tools: index.tools }));
}

async function expectFreshScan(index: ToolIndex, round: number): Promise<void> {
  const fresh = await scanOnce(repo, { cacheDir: join(temp.path, `fresh-${round}`) });
  expect(comparable(index)).toEqual(comparable(fresh));
}

describe('Scanner rescanning a local git repository', () => {
  describe('when commits change definitions in place', () => {
    it('reads only the changed entries, without listing, and holds a fresh scan\'s index after each', async () => {
      await commitFiles(repo, START);
      const scanner = new Scanner({ repo, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      const counted = countingListings(scanner);
      const commits: Array<Record<string, string | null>> = [
        { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', aliases: '[bee]', intent: 'reads other things' }) },
        { 'README.md': 'only the readme changed\n' },
        { 'policies/writes.hdlp': policy('writes', 'admin') },
        { 'toolsets/ops/TOOLSET.hdlp': toolset('ops', '[alpha, gamma]') },
        // a change the previous index cannot take in place: assembled again from the entries
        { 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma', { aliases: '[alpha]' }) },
        { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { executor: 'telepathy' }) },
        { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { group: 'letters' }), 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') },
      ];
      for (const [round, files] of commits.entries()) {
        await commitFiles(repo, files, `round ${round}`);
        await expectFreshScan(await scanner.scan(), round);
      }
      expect(counted.listings).toBe(0);
      await scanner.flush();
    });
  });

  describe('when folders are added, removed or made symlinks', () => {
    it('reads them from the trees too, without listing, and holds a fresh scan\'s index', async () => {
      await commitFiles(repo, START);
      const scanner = new Scanner({ repo, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      const counted = countingListings(scanner);
      await commitFiles(repo, { 'tools/delta/TOOL.hdlp': makeToolYaml('delta') }, 'add');
      await expectFreshScan(await scanner.scan(), 0);
      await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': null }, 'remove');
      await expectFreshScan(await scanner.scan(), 1);
      await rm(join(repo, 'policies/writes.hdlp'));
      await symlink('../README.md', join(repo, 'policies/writes.hdlp'));
      await git(repo, 'add', '-A');
      await git(repo, 'commit', '-q', '-m', 'a policy made a symlink');
      await expectFreshScan(await scanner.scan(), 2);
      // on 50f6cad each of these three listed every entry
      expect(counted.listings).toBe(0);
      await commitFiles(repo, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', intent: 'changed once more' }) }, 'edit');
      await expectFreshScan(await scanner.scan(), 3);
      expect(counted.listings).toBe(0);
      await scanner.flush();
    });
  });

  describe('when the last scanned commit is gone (history rewritten, then pruned)', () => {
    it('lists every entry of the new commit and holds a fresh scan\'s index', async () => {
      await commitFiles(repo, START);
      await commitFiles(repo, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', intent: 'soon gone' }) }, 'to be rewritten');
      const scanner = new Scanner({ repo, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await git(repo, 'reset', '-q', '--hard', 'HEAD~1');
      await commitFiles(repo, { 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma', { intent: 'rewritten' }) }, 'rewritten');
      await git(repo, 'reflog', 'expire', '--expire=now', '--all');
      await git(repo, 'gc', '-q', '--prune=now');
      const counted = countingListings(scanner);
      await expectFreshScan(await scanner.scan(), 0);
      expect(counted.listings).toBe(1);
      await scanner.flush();
    });
  });
});
