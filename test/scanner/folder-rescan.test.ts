import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';

// A folder source passes over a definition whose stat (inode, size, times, mode) is what it was when it was last
// read, unless it changed shortly before that read (a file system's clock is coarse: two writes of one size in one
// tick leave the same stat). Whatever the timing, a rescan must hold exactly a fresh scan's index.

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
      // the snapshots begin a minute from now: every file was still long before they read it
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await expectFreshScan(await scanner.scan(), 0);

      await writeFile(join(root, 'tools/alpha/TOOL.hdlp'), makeToolYaml('alpha', { intent: 'reads a longer thing' }));
      vi.setSystemTime(Date.now() + 60_000);
      await expectFreshScan(await scanner.scan(), 1);

      // the same size and the old modification time put back: only the change time tells
      const beta = join(root, 'tools/beta/TOOL.hdlp');
      const before = await stat(beta);
      await writeFile(beta, makeToolYaml('beta', { intent: 'reads BBBB' }));
      await utimes(beta, before.atime, before.mtime);
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
});
