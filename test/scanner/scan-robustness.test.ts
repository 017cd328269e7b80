import { execFile } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createParser, POOL_THRESHOLD } from '../../src/scanner/parse-pool.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { aliasBombYaml } from '../helpers/hostile-yaml.js';
import { testFolder } from '../helpers/test-folder.js';

// A repository is attacker-controlled input: whatever one definition holds or however it fails to be
// read, that file gets a diagnostic and every other tool is served.

const folder = testFolder();

describe('Scanner over a repository holding an alias bomb', () => {
  it.each(['folder', 'git'])('reports the bomb as that file\'s YAML_RESOURCE_LIMIT and serves its neighbour (%s source)', async (kind) => {
    const root = join(folder.path, 'repo');
    const files = { 'tools/bomb/TOOL.hdlp': aliasBombYaml('bomb'), 'tools/good/TOOL.hdlp': makeToolYaml('good') };
    if (kind === 'git') {
      await initRepository(root);
      await commitFiles(root, files);
    } else await writeFiles(root, files);
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/bomb/TOOL.hdlp', code: 'YAML_RESOURCE_LIMIT', line: 11, column: 10 })]);
  });

  it.each([
    ['toolsets/bomb/TOOLSET.hdlp', (bomb: string) => `name: bomb\ndescription: d\ntools: [good]\nauthor: A\nwhy: w\n${bomb}`],
    ['skills/bomb/SKILL.md', (bomb: string) => `---\nname: bomb\ndescription: d\n${bomb}---\nbody\n`],
  ])('reports a bomb in %s the same way', async (path, wrap) => {
    const root = join(folder.path, 'repo');
    const bomb = aliasBombYaml('x').split('\n').slice(9).join('\n');
    await writeFiles(root, { [path]: wrap(bomb), 'tools/good/TOOL.hdlp': makeToolYaml('good') });
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining({ file: path, code: 'YAML_RESOURCE_LIMIT' })]);
  });

  it('reports it from the worker pool of a large scan too', async () => {
    const parser = createParser(POOL_THRESHOLD);
    expect(parser.threads).toBeGreaterThan(0);
    const content = (text: string) => Buffer.from(text);
    const [bomb, good] = await Promise.all([
      parser.parse({ path: 'tools/bomb/TOOL.hdlp', folder: 'bomb', oid: 'a', content: content(aliasBombYaml('bomb')) }),
      parser.parse({ path: 'tools/good/TOOL.hdlp', folder: 'good', oid: 'b', content: content(makeToolYaml('good')) }),
    ]);
    await parser.close();
    expect(bomb!.diagnostics).toEqual([expect.objectContaining({ code: 'YAML_RESOURCE_LIMIT' })]);
    expect(good && 'tool' in good ? good.tool?.name : undefined).toBe('good');
  });
});

describe('Scanner size limits', () => {
  it('refuses a 3 GiB definition in a folder by its size, without reading it', async () => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { 'tools/huge/TOOL.hdlp': makeToolYaml('huge'), 'tools/good/TOOL.hdlp': makeToolYaml('good') });
    // sparse: 3 GiB to stat, nothing on disk; reading it would take seconds and gigabytes
    await truncate(join(root, 'tools/huge/TOOL.hdlp'), 3 * 1024 ** 3);
    const before = process.memoryUsage().rss;
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/huge/TOOL.hdlp', code: 'FILE_TOO_LARGE', message: expect.stringContaining(`is ${3 * 1024 ** 3} bytes; the limit is 1048576`) })]);
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
  });

  it('takes the configured limit, and does not reuse a scan made under another', async () => {
    const root = join(folder.path, 'repo');
    await initRepository(root);
    await commitFiles(root, { 'tools/long/TOOL.hdlp': makeToolYaml('long', { why: 'x'.repeat(4000) }) });
    expect((await scanOnce(root, { cacheDir: folder.cacheDir })).tools).toHaveLength(1);
    const limited = await scanOnce(root, { cacheDir: folder.cacheDir, maxDefinitionBytes: 2048 });
    expect(limited.tools).toHaveLength(0);
    expect(limited.errors).toEqual([expect.objectContaining({ code: 'FILE_TOO_LARGE', message: expect.stringContaining('the limit is 2048') })]);
  });

  it.each(['loose', 'packed', 'packed as a delta'])('refuses a large %s blob in git by its object header', async (storage) => {
    const root = join(folder.path, 'repo');
    await initRepository(root);
    const big = makeToolYaml('big', { why: 'y'.repeat(2 * 1024 * 1024) });
    await commitFiles(root, { 'tools/big/TOOL.hdlp': big, 'tools/good/TOOL.hdlp': makeToolYaml('good') });
    if (storage === 'packed as a delta') await commitFiles(root, { 'tools/big/TOOL.hdlp': `${big}# one more line\n` });
    if (storage !== 'loose') await git(root, 'gc', '-q', '--aggressive');
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/big/TOOL.hdlp', code: 'FILE_TOO_LARGE' })]);
  });
});

describe('Scanner when one object cannot be read', () => {
  it('reports READ_FAILED for that file, serves the others, and reads it again on the next commit', async () => {
    const root = join(folder.path, 'repo');
    await initRepository(root);
    await commitFiles(root, { 'tools/good/TOOL.hdlp': makeToolYaml('good'), 'tools/torn/TOOL.hdlp': makeToolYaml('torn') });
    const blob = await git(root, 'rev-parse', 'HEAD:tools/torn/TOOL.hdlp');
    // a loose object cut short: its header says more than the zlib stream holds
    const path = join(root, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
    await promisify(execFile)('chmod', ['u+w', path]);
    await writeFile(path, Buffer.from([0x78, 0x01, 0x4b, 0xca]));
    const scanner = new Scanner({ repo: root, cacheDir: folder.cacheDir });
    const index = await scanner.scan();
    expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
    expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/torn/TOOL.hdlp', code: 'READ_FAILED' })]);
    await scanner.flush();
    await git(root, 'rm', '-q', '--cached', 'tools/torn/TOOL.hdlp');
    await commitFiles(root, { 'tools/torn/TOOL.hdlp': makeToolYaml('torn', { why: 'repaired' }) });
    const repaired = await scanner.scan();
    // the cache write goes on after scan() answers: the temporary folder is removed only once it is done
    await scanner.flush();
    expect(repaired.tools.map((tool) => tool.name)).toEqual(['good', 'torn']);
  });
});

describe('IndexCache', () => {
  it('writes a scan of many entries a slice at a time that reads back exactly, and lets timers run meanwhile', async () => {
    const { IndexCache } = await import('../../src/scanner/index-cache.js');
    const cache = new IndexCache(join(folder.path, 'index'));
    const entries = Array.from({ length: 2345 }, (_, index) => ({ folder: `t${index}`, oid: `oid-${index}`, tool: null, diagnostics: [{ file: `tools/t${index}/TOOL.hdlp`, line: 1, column: 1, severity: 'error' as const, code: 'YAML_SYNTAX' as const, message: `"quoted" ${index}` }] }));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    await cache.save({ source: 's', commit: 'abc', scanned_at: '2026-01-01T00:00:00Z', entries });
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(0);
    const loaded = await cache.load('abc');
    expect(loaded).toMatchObject({ source: 's', commit: 'abc', scanned_at: '2026-01-01T00:00:00Z' });
    expect(loaded?.entries.all()).toEqual(entries);
    // read one at a time, they are the same, and the same objects as the whole list
    const again = (await cache.load('abc'))!.entries;
    const one = Array.from({ length: 100 }, (_, index) => again.at(index * 20));
    expect(one).toEqual(Array.from({ length: 100 }, (_, index) => entries[index * 20]));
    expect(again.all()[40]).toBe(one[2]);
    expect(again.all()).toEqual(entries);
    await cache.save({ source: 's', commit: 'empty', scanned_at: '2026-01-01T00:00:00Z', entries: [] });
    expect((await cache.load('empty'))?.entries.all()).toEqual([]);
  });
});
