// fixz25 gave a service's first scan its stop signal, but only a remote's fetch heeded it: a folder's or a local
// repository's scan read (and a cold scan parsed) every definition before the signal was looked at, so `hldp serve` or
// `hldp mcp` over 100,000 local definitions could not be stopped while it started (sig26). Both now stop between two
// files: a snapshot's reads, and a folder's own stats and reads while it is taken.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/scanner.js';
import { FolderSource } from '../../src/scanner/sources/folder-source.js';
import { LocalGitSource } from '../../src/scanner/sources/local-git-source.js';
import { ScanStopped, type RepositorySource } from '../../src/scanner/sources/source.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';

let temp: { path: string; cleanup: () => Promise<void> };
const files = Object.fromEntries(['alpha', 'beta', 'gamma'].map((name) => [`tools/${name}/TOOL.hdlp`, makeToolYaml(name)]));

beforeEach(async () => {
  temp = await makeTempDir('hldp-scan-stopped-');
});
afterEach(async () => {
  await temp.cleanup();
});

const SOURCES: Array<{ kind: string; open: (root: string) => Promise<RepositorySource> }> = [
  {
    kind: 'a folder',
    open: async (root) => {
      await writeFiles(root, files);
      return new FolderSource(root, 256 * 1024);
    },
  },
  {
    kind: 'a local git repository',
    open: async (root) => {
      await commitFiles(await initRepository(root), files);
      return new LocalGitSource(root, 'HEAD', 256 * 1024);
    },
  },
];

describe.each(SOURCES)('$kind scanned under a stop signal', ({ open }) => {
  it('reads its definitions while the signal holds, and none once it aborts: each read then fails as the scan stopped', async () => {
    const source = await open(join(temp.path, 'repo'));
    const stop = new AbortController();
    const snapshot = await source.snapshot(undefined, stop.signal);
    const entries = await snapshot.listEntries();
    expect(entries.map((entry) => entry.folder)).toEqual(['alpha', 'beta', 'gamma']);
    expect(await snapshot.read(entries[0]!)).toMatchObject({ folder: 'alpha' });
    const reason = new Error('SIGTERM while starting');
    stop.abort(reason);
    const stopped = await snapshot.read(entries[1]!).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(ScanStopped);
    expect((stopped as ScanStopped).cause).toBe(reason);
    // a snapshot taken without one is not stopped
    const unstopped = await source.snapshot();
    expect(await unstopped.read((await unstopped.listEntries())[1]!)).toMatchObject({ folder: 'beta' });
  });
});

it('a folder stopped before it is taken reads none of its files: the snapshot fails as the scan stopped', async () => {
  const root = join(temp.path, 'repo');
  await writeFiles(root, files);
  const stop = new AbortController();
  stop.abort(new Error('SIGINT while starting'));
  await expect(new FolderSource(root, 256 * 1024).snapshot(undefined, stop.signal)).rejects.toBeInstanceOf(ScanStopped);
});

// sig27: the alias conflicts' files are read once more after the entries, to place each warning at its alias; a read
// stopped there was taken for a file that cannot be read (`.catch(() => undefined)`), so the stopped scan went on,
// kept its cache file with the warning at its file's first line, and every later start served it from there.
it('a scan stopped while it places an alias conflict keeps nothing: the next scan places it at its alias', async () => {
  const root = join(temp.path, 'repo');
  // 'shared' is omega's alias at line 10, column 24 (makeToolYaml's tenth line): zeta's, later by path, is ignored
  await writeFiles(root, {
    'tools/omega/TOOL.hdlp': makeToolYaml('omega', { aliases: '[omega-other, shared]' }),
    'tools/zeta/TOOL.hdlp': makeToolYaml('zeta', { aliases: '\n  - zeta-other\n  - shared' }),
  });
  const cacheDir = join(temp.path, 'cache');
  const scanner = new Scanner({ repo: root, cacheDir });
  const stop = new AbortController();
  // the source's own snapshot, its reads stopped by the signal: the signal is aborted at the first read past the
  // entries' own (the placement's), as a SIGTERM arriving then aborts it
  const source = scanner.source;
  const snapshot = source.snapshot.bind(source);
  source.snapshot = async (pushed, signal) => {
    const taken = await snapshot(pushed, signal);
    const entries = (await taken.listEntries()).length;
    let reads = 0;
    return { ...taken, read: (entry) => ((reads += 1) > entries && stop.abort(new Error('SIGTERM while starting')), taken.read(entry)) };
  };
  await expect(scanner.scan(undefined, stop.signal)).rejects.toBeInstanceOf(ScanStopped);
  expect(await filesUnder(cacheDir, /\.(json|tmp)$/)).toEqual([]);
  const index = await new Scanner({ repo: root, cacheDir }).scan();
  expect(index.warnings.filter((warning) => warning.code === 'ALIAS_CONFLICT').map(({ file, line, column }) => `${file}:${line}:${column}`)).toEqual(['tools/zeta/TOOL.hdlp:12:5']);
});

async function filesUnder(folder: string, pattern: RegExp): Promise<string[]> {
  const names = await readdir(folder, { recursive: true }).catch(() => [] as string[]);
  return names.filter((name) => pattern.test(name));
}
