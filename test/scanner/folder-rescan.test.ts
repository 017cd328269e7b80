import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';

// A folder source passes over a definition whose stat (inode, size, times, mode) is what it was when it was last
// read, unless it changed shortly before that read (a file system's clock is coarse: two writes of one size in one
// tick leave the same stat). A kind's folders (tools/, …) are listed again only when that folder's own stat changed, by
// the same rule: adding, removing or renaming an entry changes its folder's times; writing a file inside one of its
// folders does not. Whatever the timing, a rescan must hold exactly a fresh scan's index.

let temp: { path: string; cleanup: () => Promise<void> };
let root: string;

beforeEach(async () => {
  temp = await makeTempDir('hldp-folder-rescan-');
  root = join(temp.path, 'repo');
  await writeFiles(root, {
    'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads aaaa' }),
    'tools/beta/TOOL.hdlp': makeToolYaml('beta', { intent: 'reads bbbb' }),
    'toolsets/ops/TOOLSET.hdlp': 'name: ops\ndescription: work with ops\ntools: [alpha]\nauthor: TEST-001\nwhy: tests need ops\n',
  });
});
afterEach(async () => {
  vi.useRealTimers();
  await temp.cleanup();
});

function comparable(index: ToolIndex): object {
  const { scanned_at: _scannedAt, ...rest } = index;
  return JSON.parse(JSON.stringify({ ...rest, tools: index.tools }));
}

async function expectFreshScan(index: ToolIndex, round: number): Promise<void> {
  expect(comparable(index)).toEqual(comparable(await scanOnce(root, { cacheDir: join(temp.path, `fresh-${round}`) })));
}

describe('Scanner rescanning a folder', () => {
  describe('when a folder is scanned and rescanned', () => {
    it('names it by the commit id a folder always had (its cache files stay valid): the SHA-1 of each entry\'s line', async () => {
      const blob = async (path: string): Promise<string> => {
        const content = await readFile(join(root, path));
        return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
      };
      const lines = `alpha\0${await blob('tools/alpha/TOOL.hdlp')}\nbeta\0${await blob('tools/beta/TOOL.hdlp')}\ntoolset/ops\0${await blob('toolsets/ops/TOOLSET.hdlp')}\n`;
      const commit = `folder:${createHash('sha1').update(lines).digest('hex')}`;
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      expect((await scanner.scan()).commit).toBe(commit);
      vi.setSystemTime(Date.now() + 60_000);
      expect((await scanner.scan()).commit).toBe(commit);
      await scanner.flush();
    });
  });

  describe('when a file changes right after it was read (the same size, within the file system clock\'s tick)', () => {
    it('reads it again and sees the change', async () => {
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await writeFile(join(root, 'tools/alpha/TOOL.hdlp'), makeToolYaml('alpha', { intent: 'reads AAAA' }));
      const index = await scanner.scan();
      expect(index.tools.find((tool) => tool.name === 'alpha')?.intent).toBe('reads AAAA');
      await expectFreshScan(index, 0);
      await scanner.flush();
    });
  });

  describe('when files last changed long before they were read', () => {
    it('sees a changed size, a content with the same size and restored times, a new and a removed file', async () => {
      // beta's times of a whole second, as a coarse file system stamps them: a rewrite below puts them back exactly
      const beta = join(root, 'tools/beta/TOOL.hdlp');
      const second = Math.floor((await stat(beta)).mtimeMs / 1000);
      await utimes(beta, second, second);
      // the snapshots begin a minute from now: every file was still long before they read it
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await expectFreshScan(await scanner.scan(), 0);

      await writeFile(join(root, 'tools/alpha/TOOL.hdlp'), makeToolYaml('alpha', { intent: 'reads a longer thing' }));
      vi.setSystemTime(Date.now() + 60_000);
      await expectFreshScan(await scanner.scan(), 1);

      // the same size and the old modification time put back: only the change time tells
      const before = await stat(beta);
      await writeFile(beta, makeToolYaml('beta', { intent: 'reads BBBB' }));
      await utimes(beta, second, second);
      expect((await stat(beta)).mtimeMs).toBe(before.mtimeMs);
      vi.setSystemTime(Date.now() + 60_000);
      const index = await scanner.scan();
      expect(index.tools.find((tool) => tool.name === 'beta')?.intent).toBe('reads BBBB');
      await expectFreshScan(index, 2);

      await writeFiles(root, { 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma'), 'tools/alpha/TOOL.hdlp': null });
      vi.setSystemTime(Date.now() + 60_000);
      await expectFreshScan(await scanner.scan(), 3);
      await scanner.flush();
    });
  });

  describe('when entries are added, removed and renamed after a listing was vouched for by its folder\'s stat', () => {
    it('lists the folder again and holds what a fresh scan holds after each change', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const later = (): void => void vi.setSystemTime(Date.now() + 60_000);
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      const names = async (): Promise<string[]> => {
        later();
        const index = await scanner.scan();
        await expectFreshScan(index, round++);
        return index.tools.map((tool) => tool.name);
      };
      let round = 0;
      expect(await names()).toEqual(['alpha', 'beta']);

      await writeFiles(root, { 'tools/gamma/TOOL.hdlp': makeToolYaml('gamma') });
      expect(await names()).toEqual(['alpha', 'beta', 'gamma']);

      // a folder renamed: its definition, naming the old folder, is refused in a folder of another name
      await rename(join(root, 'tools/gamma'), join(root, 'tools/delta'));
      expect(await names()).toEqual(['alpha', 'beta']);
      await writeFiles(root, { 'tools/delta/TOOL.hdlp': makeToolYaml('delta') });
      expect(await names()).toEqual(['alpha', 'beta', 'delta']);

      // the definition removed, its folder kept (a warning), then put back
      await writeFiles(root, { 'tools/beta/TOOL.hdlp': null });
      later();
      const without = await scanner.scan();
      expect(without.warnings.map((warning) => warning.code)).toContain('MISSING_DEFINITION');
      await expectFreshScan(without, round++);
      await writeFiles(root, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { intent: 'reads bbbb again' }) });
      expect(await names()).toEqual(['alpha', 'beta', 'delta']);

      // the definition made a link: refused as not a regular file
      await writeFiles(root, { 'tools/delta/TOOL.hdlp': null });
      await symlink(join(root, 'tools/alpha/TOOL.hdlp'), join(root, 'tools/delta/TOOL.hdlp'));
      expect(await names()).toEqual(['alpha', 'beta']);

      await writeFiles(root, { 'tools/delta': null });
      expect(await names()).toEqual(['alpha', 'beta']);

      // other kinds, a flat one (policies/<name>.hdlp) among them
      await writeFiles(root, {
        'toolsets/ops/TOOLSET.hdlp': 'name: ops\ndescription: work with ops\ntools: [alpha, beta]\nauthor: TEST-001\nwhy: tests need ops\n',
        'skills/notes/SKILL.md': '---\nname: notes\ndescription: takes notes\n---\nTake notes.\n',
        'policies/writes.hdlp': ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [alpha]', '    decision: approve', '    reason: a write needs a person'].join('\n'),
      });
      later();
      const all = await scanner.scan();
      expect(all.toolsets.map((toolset) => toolset.tools)).toEqual([['alpha', 'beta']]);
      expect(all.policies?.length).toBe(1);
      await expectFreshScan(all, round++);
      await writeFiles(root, { 'policies/writes.hdlp': null, 'skills/notes': null });
      later();
      const fewer = await scanner.scan();
      expect(fewer.policies ?? []).toEqual([]);
      await expectFreshScan(fewer, round++);
      await scanner.flush();
    });

    it('sees what changes in a tools/ that is a link to another folder (the link\'s stat says nothing of its target)', async () => {
      const elsewhere = join(temp.path, 'elsewhere');
      await writeFiles(elsewhere, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      await writeFiles(root, { tools: null });
      await symlink(join(elsewhere, 'tools'), join(root, 'tools'));
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      expect((await scanner.scan()).tools.map((tool) => tool.name)).toEqual(['alpha']);
      await writeFiles(elsewhere, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
      vi.setSystemTime(Date.now() + 60_000);
      const index = await scanner.scan();
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
      await expectFreshScan(index, 0);
      await scanner.flush();
    });
  });

  describe('when a folder is added right after its kind\'s folder was listed (within the file system clock\'s tick)', () => {
    it('lists it again and sees the new folder', async () => {
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await mkdir(join(root, 'tools/gamma'));
      await writeFile(join(root, 'tools/gamma/TOOL.hdlp'), makeToolYaml('gamma'));
      const index = await scanner.scan();
      expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta', 'gamma']);
      await expectFreshScan(index, 0);
      await scanner.flush();
    });
  });
});
