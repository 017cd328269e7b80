import { readdirSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTool } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

// A scan with no earlier entries writes each entry to the cache file as it is parsed, keeps only what assembling the
// index needs, and serves the index from that file; with a cache it cannot write, it reads every entry into memory
// as before. Both must give the same index.
describe('a cold scan', () => {
  it('serves from the file it wrote exactly the index a scan held in memory gives: collisions, aliases, toolsets, skills, errors with their lines', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, {
      'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { display: '"工具 🚀 alpha — ёлка"', aliases: '[first, shared]' }),
      'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[alpha, shared, second]', group: 'letters' }),
      'tools/Alpha/TOOL.hdlp': makeToolYaml('Alpha'),
      'tools/late/TOOL.hdlp': makeToolYaml('late', { created: 'someday' }),
      'toolsets/letters/TOOLSET.hdlp': 'name: letters\ndescription: the letters\ntools: [alpha, letters, missing]\nauthor: a\nwhy: w\n',
      'toolsets/fine/TOOLSET.hdlp': 'name: fine\ndescription: fine\ntools: [alpha, second]\nauthor: a\nwhy: w\n',
      'skills/care/SKILL.md': '---\nname: care\ndescription: how to care — 小心\ntoolset: fine\n---\n# care\n',
    });
    const streamed = await scanOnce(repo, { cacheDir: join(temp.path, 'cache') });
    // a cache folder that cannot be made: the scan is held in memory, as every scan was before
    await writeFile(join(temp.path, 'not-a-folder'), '');
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    const inMemory = await scanOnce(repo, { cacheDir: join(temp.path, 'not-a-folder') });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.join('\n')).toMatch(/index cache not written/);
    expect({ ...streamed, scanned_at: '' }).toEqual({ ...inMemory, scanned_at: '' });
    // both folders are their names and neither was served before: the first by path (code point) order, Alpha, is kept,
    // alpha is the duplicate, and the alias 'alpha' names Alpha
    expect(streamed.tools.map((tool) => [tool.name, tool.aliases])).toEqual([['Alpha', []], ['beta', ['shared', 'second']]]);
    expect(streamed.warnings).toEqual([
      expect.objectContaining({ file: 'tools/Alpha/TOOL.hdlp', code: 'CASE_TWIN' }),
      expect.objectContaining({ file: 'tools/alpha/TOOL.hdlp', code: 'CASE_TWIN' }),
      expect.objectContaining({ file: 'tools/beta/TOOL.hdlp', code: 'ALIAS_CONFLICT' }),
    ]);
    expect(streamed.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ file: 'tools/late/TOOL.hdlp', line: 8, column: 10 }),
      expect.objectContaining({ file: 'tools/alpha/TOOL.hdlp', code: 'DUPLICATE_NAME' }),
      expect.objectContaining({ file: 'toolsets/letters/TOOLSET.hdlp', code: 'UNKNOWN_MEMBER' }),
    ]));
    expect(streamed.skills).toEqual([expect.objectContaining({ name: 'care', toolset: 'fine' })]);
  });

  it('whose file cannot be put in place serves the scan all the same, and leaves neither its descriptor open nor a temporary file (found in review)', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const cacheDir = join(temp.path, 'cache');
    const first = await scanOnce(repo, { cacheDir });
    // a folder where the file goes: the rename of the finished file fails (EISDIR)
    const [file] = await filesUnder(cacheDir, '.json');
    await rm(file!);
    await mkdir(join(file!, 'in-the-way'), { recursive: true });
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let round = 0; round < 20; round++) expect({ ...(await scanOnce(repo, { cacheDir })), scanned_at: '' }).toEqual({ ...first, scanned_at: '' });
    // each failed keep left its descriptor open, and each failed save its temporary file; what is left open now is
    // one descriptor a round at most, read through by entries until they are collected
    expect(open() - before).toBeLessThan(30);
    expect(await filesUnder(cacheDir, '.tmp')).toEqual([]);
  });

  it('is what a restart from its cache serves, and a rescan of a new commit reads only the changed file', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const cacheDir = join(temp.path, 'cache');
    const scanner = new Scanner({ repo, cacheDir });
    const cold = await scanner.scan();
    await scanner.flush();
    const restarted = await scanOnce(repo, { cacheDir });
    expect(restarted.scanned_at).toBe(cold.scanned_at);
    expect(restarted).toEqual(cold);
    await commitFiles(repo, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { intent: 'does beta differently' }) });
    const rescanned = await scanner.scan();
    expect(rescanned.tools.map((tool) => [tool.name, tool.intent])).toEqual([['alpha', 'does alpha things'], ['beta', 'does beta differently']]);
    // the unchanged tool is the very object the cold scan served
    expect(findTool(rescanned, 'alpha')).toBe(findTool(cold, 'alpha'));
  });
});

/** The files under `folder` (at any depth) whose names end with `suffix`. */
async function filesUnder(folder: string, suffix: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(suffix)).map((entry) => join(entry.parentPath, entry.name));
}
