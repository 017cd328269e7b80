import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { sourceCacheDir } from '../../src/scanner/open-source.js';
import { FileStamps } from '../../src/scanner/sources/file-stamps.js';
import { FolderSource } from '../../src/scanner/sources/folder-source.js';
import { readFolderRecord, writeFolderRecord } from '../../src/scanner/sources/folder-record.js';
import { MAX_DEFINITION_BYTES } from '../../src/scanner/yaml-mapping.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { comparableIndex } from '../helpers/warm-cache.js';

// A folder source's kept record vouches for a file by its stat at the next start. A file system stamps times by a
// coarse clock (whole seconds on ext3 and HFS+, two seconds on FAT): a file rewritten with the same size within the
// tick of the scan that read it keeps the very stat that scan recorded, and must be read again all the same (git's
// "racily clean" entries). This machine's file system stamps nanoseconds, so its clock is made coarse here: from
// `frozenAtNs` on, every time a stat reports is that instant, as on a file system whose clock has not ticked since.

const coarse = vi.hoisted(() => ({ frozenAtNs: undefined as bigint | undefined, opened: [] as string[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const lstatSync = ((path: string, options?: { bigint?: boolean }) => {
    const stats = (fs.lstatSync as (path: string, options?: object) => import('node:fs').BigIntStats | undefined)(path, options);
    const frozen = coarse.frozenAtNs;
    if (stats && options?.bigint && frozen !== undefined) {
      if (stats.mtimeNs > frozen) stats.mtimeNs = frozen;
      if (stats.ctimeNs > frozen) stats.ctimeNs = frozen;
    }
    return stats;
  }) as typeof fs.lstatSync;
  return { ...fs, default: { ...fs, lstatSync }, lstatSync };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const promises = await importOriginal<typeof import('node:fs/promises')>();
  const open = ((path: string, ...rest: unknown[]) => {
    if (String(path).endsWith('.hdlp')) coarse.opened.push(String(path).split('/').slice(-2, -1)[0]!);
    return (promises.open as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof promises.open;
  return { ...promises, default: { ...promises, open }, open };
});

let temp: { path: string; cleanup: () => Promise<void> };
let root: string;
let cacheDir: string;

beforeEach(async () => {
  temp = await makeTempDir('hldp-folder-restart-racy-');
  root = join(temp.path, 'repo');
  cacheDir = join(temp.path, 'cache');
  await writeFiles(root, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads aaaa' }), 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { intent: 'reads bbbb' }) });
  coarse.opened = [];
});
afterEach(async () => {
  coarse.frozenAtNs = undefined;
  vi.useRealTimers();
  await temp.cleanup();
});

/** A new Scanner over the cache, as a restarted process makes: its scan, the files it opened, and its cache written. */
async function restart(): Promise<{ intent: string | undefined; opened: string[]; index: Awaited<ReturnType<Scanner['scan']>> }> {
  coarse.opened = [];
  const scanner = new Scanner({ repo: root, cacheDir });
  const index = await scanner.scan();
  await scanner.flush();
  return { intent: index.tools.find((tool) => tool.name === 'alpha')?.intent, opened: coarse.opened.slice().sort(), index };
}

describe('a plain folder restarted from its kept record', () => {
  describe('when a definition is rewritten with the same size within the clock tick of the scan that read it', () => {
    it('reads it again at the restart, and at each start until it has been still for the racy window', async () => {
      // a second ago: the writes since, and the kernel's coarse clock that stamps them, are all past it
      const frozenAtMs = Date.now() - 1000;
      coarse.frozenAtNs = BigInt(frozenAtMs) * 1_000_000n;
      vi.useFakeTimers({ toFake: ['Date'], now: frozenAtMs + 1000 });
      await writeFiles(root, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads AAAA' }) });
      expect((await restart()).intent).toBe('reads AAAA');
      // the same size, the same stat: only the racy rule tells
      await writeFiles(root, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads CCCC' }) });
      vi.setSystemTime(frozenAtMs + 1500);
      const racy = await restart();
      expect(racy.intent).toBe('reads CCCC');
      expect(comparableIndex(racy.index)).toEqual(comparableIndex(await scanOnce(root, { cacheDir: join(temp.path, 'fresh-0') })));
      // a minute on, alpha was read last within the window of its own time: read once more, then vouched for
      vi.setSystemTime(frozenAtMs + 60_000);
      expect((await restart()).opened).toEqual(['alpha', 'beta']);
      vi.setSystemTime(frozenAtMs + 120_000);
      const still = await restart();
      expect(still.opened).toEqual([]);
      expect(still.intent).toBe('reads CCCC');
    });

    it('reads it again at a running scanner\'s rescan too', async () => {
      // a second ago: the writes since, and the kernel's coarse clock that stamps them, are all past it
      const frozenAtMs = Date.now() - 1000;
      coarse.frozenAtNs = BigInt(frozenAtMs) * 1_000_000n;
      vi.useFakeTimers({ toFake: ['Date'], now: frozenAtMs + 1000 });
      const scanner = new Scanner({ repo: root, cacheDir });
      await writeFiles(root, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads AAAA' }) });
      await scanner.scan();
      await writeFiles(root, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { intent: 'reads CCCC' }) });
      vi.setSystemTime(frozenAtMs + 1500);
      expect((await scanner.scan()).tools.find((tool) => tool.name === 'alpha')?.intent).toBe('reads CCCC');
      await scanner.flush();
    });
  });

  describe('when its record is damaged or names a folder outside', () => {
    it('reads every file as at a first start, and serves what a fresh scan serves', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      await restart();
      const path = join(sourceCacheDir(cacheDir, FolderSource.cacheKeyOf(root)), 'folder-record');
      const record = (await readFolderRecord(path, root, MAX_DEFINITION_BYTES))!;
      expect(record.entries.map((entry) => entry.folder)).toEqual(['alpha', 'beta']);
      vi.setSystemTime(Date.now() + 60_000);
      expect((await restart()).opened).toEqual([]);

      // its listing still vouched for by tools/'s stat, but naming a folder out of the root
      await writeFiles(temp.path, { 'gamma/TOOL.hdlp': makeToolYaml('gamma') });
      const lists = [['../../gamma', 'alpha', 'beta'], ...record.lists.slice(1)];
      const entries = [{ folder: '../../gamma', oid: record.entries[0]!.oid }, ...record.entries];
      const stamps = new FileStamps(3);
      stamps.copy(1, record.stamps, 0);
      stamps.copy(2, record.stamps, 1);
      await writeFolderRecord(path, root, MAX_DEFINITION_BYTES, { ...record, lists, entries, stamps });
      vi.setSystemTime(Date.now() + 60_000);
      const outside = await restart();
      expect(outside.opened).toEqual(['alpha', 'beta']);
      expect(outside.index.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);

      // a byte of its body changed
      const { readFile, writeFile } = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');
      const bytes = await readFile(path);
      bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 1;
      await writeFile(path, bytes);
      vi.setSystemTime(Date.now() + 60_000);
      const damaged = await restart();
      expect(damaged.opened).toEqual(['alpha', 'beta']);
      expect(comparableIndex(damaged.index)).toEqual(comparableIndex(await scanOnce(root, { cacheDir: join(temp.path, 'fresh-1') })));
    });
  });
});
