import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/core/index.js';
import { Scanner, ScanError, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { cacheFileOf, cacheFileParts, layout5Of, layout6Of } from '../helpers/scan-cache-layout.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();

describe('Scanner on a plain folder', () => {
  it('loads every valid tool, sorted by name', async () => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { 'tools/zeta/TOOL.hdlp': makeToolYaml('zeta'), 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.tools.map((tool) => tool.name)).toEqual(['alpha', 'zeta']);
    expect(index.commit).toMatch(/^folder:[0-9a-f]{40}$/);
  });

  describe('when one definition is broken', () => {
    it('reports it with path, line and reason while the others load', async () => {
      const root = join(folder.path, 'repo');
      await writeFiles(root, {
        'tools/good/TOOL.hdlp': makeToolYaml('good'),
        'tools/bad/TOOL.hdlp': makeToolYaml('bad', { executor: 'telepathy' }),
      });
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.tools.map((tool) => tool.name)).toEqual(['good']);
      expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/bad/TOOL.hdlp', line: 5, column: 11, code: 'SCHEMA_VIOLATION' })]);
    });
  });

  describe('when two folders differ only in case', () => {
    it('keeps the first by path order and reports the second at its name', async () => {
      const root = join(folder.path, 'repo');
      await writeFiles(root, { 'tools/Tool/TOOL.hdlp': makeToolYaml('Tool'), 'tools/tool/TOOL.hdlp': makeToolYaml('tool') });
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.tools.map((tool) => tool.name)).toEqual(['Tool']);
      expect(index.errors).toEqual([
        expect.objectContaining({ file: 'tools/tool/TOOL.hdlp', line: 1, column: 7, code: 'DUPLICATE_NAME', message: expect.stringContaining('tools/Tool/TOOL.hdlp') }),
      ]);
    });
  });

  describe('when an alias names another tool', () => {
    it('ignores the alias with a warning and keeps both tools', async () => {
      const root = join(folder.path, 'repo');
      await writeFiles(root, {
        'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '[beta, first]' }),
        'tools/beta/TOOL.hdlp': makeToolYaml('beta'),
      });
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.tools.find((tool) => tool.name === 'alpha')?.aliases).toEqual(['first']);
      expect(index.warnings).toEqual([expect.objectContaining({ code: 'ALIAS_CONFLICT', file: 'tools/alpha/TOOL.hdlp' })]);
    });
  });

  describe('when a folder has no TOOL.hdlp or is a symlink', () => {
    it('warns about the empty folder and never follows the link', async () => {
      const root = join(folder.path, 'repo');
      const outside = join(folder.path, 'outside');
      await writeFiles(outside, { 'TOOL.hdlp': makeToolYaml('linked') });
      await writeFiles(root, { 'tools/real/TOOL.hdlp': makeToolYaml('real'), 'tools/empty/README.md': 'nothing' });
      await symlink(outside, join(root, 'tools', 'linked'));
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.tools.map((tool) => tool.name)).toEqual(['real']);
      expect(index.warnings).toEqual([expect.objectContaining({ code: 'MISSING_DEFINITION', file: 'tools/empty/' })]);
    });
  });

  describe('when the folder does not exist', () => {
    it('throws SOURCE_NOT_FOUND naming what to pass', async () => {
      await expect(scanOnce(join(folder.path, 'nowhere'), { cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'SOURCE_NOT_FOUND' });
    });
  });
});

describe('Scanner on a local git repository', () => {
  it('reads the committed tree, not the working tree', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    const commit = await commitFiles(repo, { 'tools/committed/TOOL.hdlp': makeToolYaml('committed') });
    await writeFiles(repo, { 'tools/uncommitted/TOOL.hdlp': makeToolYaml('uncommitted') });
    const index = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(index.commit).toBe(commit);
    expect(index.tools.map((tool) => tool.name)).toEqual(['committed']);
  });

  it('reads another ref when asked', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    const first = await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    await commitFiles(repo, { 'tools/two/TOOL.hdlp': makeToolYaml('two') });
    const index = await scanOnce(repo, { cacheDir: folder.cacheDir, ref: first });
    expect(index.tools.map((tool) => tool.name)).toEqual(['one']);
  });

  it('finds a new tool on the next scan of the same scanner, re-reading only what changed', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one'), 'tools/two/TOOL.hdlp': makeToolYaml('two') });
    const scanner = new Scanner({ repo, cacheDir: folder.cacheDir });
    const before = await scanner.scan();
    await commitFiles(repo, { 'tools/three/TOOL.hdlp': makeToolYaml('three'), 'tools/two/TOOL.hdlp': makeToolYaml('two', { intent: 'changed' }) });
    const after = await scanner.scan();
    expect(after.tools.map((tool) => tool.name)).toEqual(['one', 'three', 'two']);
    // an unchanged folder keeps its parsed definition; a changed one is parsed again
    expect(after.tools[0]).toBe(before.tools[0]);
    expect(after.tools[2]?.intent).toBe('changed');
  });

  it('reads a ref written as git writes them: HEAD~1, HEAD^, main~2, a short id', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    const first = await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    await commitFiles(repo, { 'tools/two/TOOL.hdlp': makeToolYaml('two') });
    await commitFiles(repo, { 'tools/three/TOOL.hdlp': makeToolYaml('three') });
    const names = async (ref: string) => (await scanOnce(repo, { cacheDir: folder.cacheDir, ref })).tools.map((tool) => tool.name);
    expect(await names('HEAD~1')).toEqual(['one', 'two']);
    expect(await names('HEAD^')).toEqual(['one', 'two']);
    expect(await names('HEAD~2')).toEqual(['one']);
    expect(await names('HEAD^^')).toEqual(['one']);
    expect(await names(first.slice(0, 8))).toEqual(['one']);
    await expect(scanOnce(repo, { cacheDir: folder.cacheDir, ref: 'HEAD~3' })).rejects.toMatchObject({ code: 'REF_NOT_FOUND', message: expect.stringMatching(/has no parent \(it is the first commit\)/) });
    await expect(scanOnce(repo, { cacheDir: folder.cacheDir, ref: 'nope' })).rejects.toMatchObject({ code: 'REF_NOT_FOUND', message: expect.not.stringMatching(/no commits yet/) });
    await expect(scanOnce(repo, { cacheDir: folder.cacheDir, ref: 'nope' })).rejects.toMatchObject({ message: expect.stringMatching(/^ref 'nope' cannot be read in '.*#nope': .*; give a branch, a tag, a commit id, or one of them followed by ~N or \^N$/) });
  });

  it('reads HEAD however git keeps it: a loose branch, a packed branch, a detached commit, a branch naming a branch', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    const first = await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    const second = await commitFiles(repo, { 'tools/two/TOOL.hdlp': makeToolYaml('two') });
    const commitOf = async () => (await scanOnce(repo, { cacheDir: folder.cacheDir })).commit;
    expect(await commitOf()).toBe(second);
    // the branch only in packed-refs (its loose file gone), as `git gc` leaves it
    await git(repo, 'pack-refs', '--all', '--prune');
    expect(await commitOf()).toBe(second);
    await git(repo, 'checkout', '-q', '--detach', first);
    expect(await commitOf()).toBe(first);
    // HEAD on a branch that is itself a symbolic ref to main
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    await git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/alias');
    expect(await commitOf()).toBe(second);
  });

  it('refuses an empty repository with REF_NOT_FOUND, saying it has no commits', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await expect(scanOnce(repo, { cacheDir: folder.cacheDir })).rejects.toMatchObject({ code: 'REF_NOT_FOUND', message: expect.stringMatching(/no commits yet/) });
  });

  it('refuses a SHA-256 repository clearly', async () => {
    const repo = await initRepository(join(folder.path, 'repo'), { objectFormat: 'sha256' });
    await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    const error = await scanOnce(repo, { cacheDir: folder.cacheDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScanError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_OBJECT_FORMAT', message: expect.stringContaining('sha256') });
  });
});

describe('the index cache', () => {
  it('serves a restart at an unchanged commit from disk, without parsing', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    const second = await scanOnce(repo, { cacheDir: folder.cacheDir });
    // scanned_at is set when definitions are parsed: equal means the second run parsed nothing
    expect(second.scanned_at).toBe(first.scanned_at);
    expect(second.tools).toEqual(first.tools);
  });

  it('ignores a torn cache file and parses again', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one') });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    const { readdir, writeFile } = await import('node:fs/promises');
    const sources = join(folder.cacheDir, 'sources');
    const [sourceDir] = await readdir(sources);
    const indexDir = join(sources, sourceDir!, 'index');
    for (const name of await readdir(indexDir)) await writeFile(join(indexDir, name), '{"parser":');
    const second = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(second.tools.map((tool) => tool.name)).toEqual(['one']);
    expect(second.scanned_at).not.toBe(first.scanned_at);
    const header = (await readFile(join(indexDir, `${first.commit}.json`), 'latin1')).split('\n')[0]!;
    expect(JSON.parse(header).commit).toBe(first.commit);
  });

  it('restarts from the index it stored, equal to one built afresh: aliases another tool took, toolsets, skills, errors, text beyond ASCII', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, {
      'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { display: '"工具 🚀 alpha — ёлка"', aliases: '[first, shared]' }),
      'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[alpha, shared, second]', group: 'letters' }),
      'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'nope' }),
      'toolsets/letters/TOOLSET.hdlp': 'name: letters\ndescription: the letters\ntools: [alpha, letters, missing]\n',
      'skills/care/SKILL.md': '---\nname: care\ndescription: how to care — 小心\n---\n# care\n',
    });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    const restarted = await scanOnce(repo, { cacheDir: folder.cacheDir });
    // scanned_at is set when definitions are parsed: equal means the restart parsed nothing
    expect(restarted.scanned_at).toBe(first.scanned_at);
    expect(restarted).toEqual(first);
    expect(restarted.tools.find((tool) => tool.name === 'beta')?.aliases).toEqual(['second']);
    expect(restarted.tools[0]!.display).toBe('工具 🚀 alpha — ёлка');
    const afresh = await scanOnce(repo, { cacheDir: join(folder.path, 'other-cache') });
    expect({ ...restarted, scanned_at: '' }).toEqual({ ...afresh, scanned_at: '' });
    expect(first.warnings.length + first.errors.length).toBeGreaterThan(1);
  });

  it('builds the index again from a cache written by an older version, never reading what it holds', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/one/TOOL.hdlp': makeToolYaml('one', { display: '"工具 one"' }) });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    const { readdir, writeFile } = await import('node:fs/promises');
    const indexDir = join(folder.cacheDir, 'sources', (await readdir(join(folder.cacheDir, 'sources')))[0]!, 'index');
    const path = join(indexDir, `${first.commit}.json`);
    const file = await readFile(path);
    const parts = cacheFileParts(file);
    const header = JSON.parse(parts.header) as { parser: string; entries: number };
    expect(header.parser).toMatch(/^11\//);
    // layout 7: the header, the entries, a line of JSON, then the lines' starts, the tools' positions, kinds and names,
    // and the tools' aliases and facts as texts
    expect(cacheFileOf(parts).equals(file)).toBe(true);
    expect(parts.tailLine).toMatchObject({ layout: 7, tools: 1, aliases: [] });
    expect(parts.tailLine.index).not.toHaveProperty('toolAliases');
    expect(JSON.parse(parts.toolAliases!)).toEqual([[]]);
    expect(parts.names).toEqual(['one']);
    const entries = parts.entryLines.map((line) => JSON.parse(line) as { tool: { intent: string } });
    expect(entries).toHaveLength(header.entries);
    const misread = entries.map((entry) => ({ ...entry, tool: { ...entry.tool, intent: 'MISREAD' } }));
    const misreadLines = misread.map((entry) => JSON.stringify(entry));
    const hash = header.parser.replace(/^11\//, '');
    const { entries: _count, ...rest } = header;
    const layout5 = JSON.parse(layout5Of(parts, '', misreadLines).split('\n').at(-4)!) as { tools: unknown[] };
    const indexLine = JSON.stringify(layout5);
    // the layouts before this one: 8 and 7, the same bytes under the parser strings of the versions before; 6, the texts inside the tail's line (also under this version's parser string); 5, the
    // index and the lengths as JSON after the entries (also under this version's parser string, as a file copied by hand
    // might have); 4, the index and the lengths before the entries; 3, lines without their lengths; one JSON document
    // (2: ASCII, with a stored index; 1: the bare parser hash, UTF-8, none)
    const older = [
      // 10: this layout, its stored index without each tool's declared params (review Z17, Z17-5)
      cacheFileOf({ ...parts, header: JSON.stringify({ ...header, parser: `10/${hash}` }), tailLine: { ...parts.tailLine, index: withoutParams(parts.tailLine.index) }, entryLines: misreadLines }),
      // 8: this layout, its stored index without the contested names (review Z, Z1)
      cacheFileOf({ ...parts, header: JSON.stringify({ ...header, parser: `8/${hash}` }), entryLines: misreadLines }),
      // 7: this layout, its ALIAS_CONFLICT warnings not yet at the alias (review R, R14)
      cacheFileOf({ ...parts, header: JSON.stringify({ ...header, parser: `7/${hash}` }), entryLines: misreadLines }),
      layout6Of(parts, `6/${hash}`, misreadLines),
      layout6Of(parts, header.parser, misreadLines),
      layout5Of(parts, `5/${hash}`, misreadLines),
      layout5Of(parts, header.parser, misreadLines),
      [JSON.stringify({ ...header, parser: `4/${hash}` }), indexLine, JSON.stringify(misreadLines.map((line) => line.length + 1)), ...misreadLines, ''].join('\n'),
      [JSON.stringify({ ...header, parser: `3/${hash}` }), indexLine, ...misreadLines, ''].join('\n'),
      JSON.stringify({ ...rest, parser: `2/${hash}`, entries: misread, index: { tools: layout5.tools, toolsets: [], skills: [], policies: [], errors: [], warnings: [] } }),
      JSON.stringify({ ...rest, parser: hash, entries: misread }),
    ];
    for (const text of older) {
      await writeFile(path, text, 'utf8');
      const second = await scanOnce(repo, { cacheDir: folder.cacheDir });
      expect(second.scanned_at).not.toBe(first.scanned_at);
      expect(second.tools.map((tool) => [tool.intent, tool.display])).toEqual([['does one things', '工具 one']]);
    }
    // a file of this layout whose stored index does not fit its entries is not trusted either: a tool's position past
    // the entries, its entry's kind not a tool's, a name fewer than the tools, the names' bytes not what the line says
    const current = cacheFileParts(await readFile(path));
    const names = current.names.join('\n').length + 1;
    const aliasesBytes = Buffer.byteLength(current.toolAliases!);
    for (const wrong of [{ positions: [7] }, { kinds: 's' }, { names: [] as string[], tailLine: { ...current.tailLine, namesBytes: 0 } }, { tailLine: { ...current.tailLine, namesBytes: names + 1 } }, { tailLine: { ...current.tailLine, toolAliasesBytes: aliasesBytes + 1 } }, { toolAliases: undefined, tailLine: { ...current.tailLine, toolAliasesBytes: 0.5 } }]) {
      await writeFile(path, cacheFileOf({ ...current, ...wrong }));
      expect((await scanOnce(repo, { cacheDir: folder.cacheDir })).tools.map((tool) => [tool.name, tool.intent])).toEqual([['one', 'does one things']]);
    }
    // nor is one with a line more or less than its header counts, or than its starts say, or cut anywhere
    const again = cacheFileParts(await readFile(path));
    const whole = cacheFileOf(again);
    const lineMore = Buffer.concat([Buffer.from(`${again.header}\n${again.entryLines[0]}\n`, 'latin1'), whole.subarray(again.header.length + 1)]);
    const torn = [lineMore, cacheFileOf({ ...again, entryLines: [] }), whole.subarray(0, whole.length - 3), whole.subarray(0, again.header.length + 20), Buffer.concat([whole, Buffer.from('x\n')])];
    for (const text of torn) {
      await writeFile(path, text);
      const scanned = await scanOnce(repo, { cacheDir: folder.cacheDir });
      expect(scanned.tools.map((tool) => tool.name)).toEqual(['one']);
      expect(scanned.scanned_at).not.toBe(first.scanned_at);
    }
  });

  it('reads a tool by name from a restart without the others, with the same results and errors as a fresh scan', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, {
      'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '[shared]' }),
      'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[shared, second]' }),
      'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'telepathy' }),
      'tools/gamma/TOOL.hdlp': makeToolYaml('gamma'),
    });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    const restarted = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(restarted.scanned_at).toBe(first.scanned_at);
    // the errors are there before any tool is read: the broken definition with its file, line and reason
    expect(restarted.errors).toEqual(first.errors);
    expect(restarted.errors).toEqual([expect.objectContaining({ file: 'tools/broken/TOOL.hdlp', line: 5, column: 11, code: 'SCHEMA_VIOLATION', message: expect.stringContaining("'executor' must be one of") })]);
    const beta = findTool(restarted, 'beta');
    expect(beta).toEqual(findTool(first, 'beta'));
    expect(beta?.aliases).toEqual(['second']);
    expect(findTool(restarted, 'broken')).toBeUndefined();
    expect(findTool(restarted, 'nope')).toBeUndefined();
    // the whole list, made later, holds the very objects the lookups gave
    expect(restarted.tools).toEqual(first.tools);
    expect(restarted.tools[1]).toBe(beta);
    expect(findTool(restarted, 'gamma')).toBe(restarted.tools[2]);
    expect(JSON.stringify(restarted)).toBe(JSON.stringify(first));
    expect({ ...(await scanOnce(repo, { cacheDir: folder.cacheDir })) }).toEqual(first);
  });

  it('refuses an entry line damaged after it was written, removes the file and scans afresh the next time', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta') });
    const first = await scanOnce(repo, { cacheDir: folder.cacheDir });
    // made now: a cold scan serves its tools from the file it wrote, which only this test changes in place
    const firstTools = first.tools;
    const { readdir, writeFile } = await import('node:fs/promises');
    const indexDir = join(folder.cacheDir, 'sources', (await readdir(join(folder.cacheDir, 'sources')))[0]!, 'index');
    const path = join(indexDir, `${first.commit}.json`);
    const lines = (await readFile(path, 'latin1')).split('\n');
    // line 0 is the header, then the entries: line 2 is beta's
    const write = (damaged: string) => writeFile(path, [...lines.slice(0, 2), damaged, ...lines.slice(3)].join('\n'), 'latin1');
    // of the same length, it is read and refused when its tool is asked for
    await write(lines[2]!.replace('"name":"beta"', '"name":"zeta"'));
    const restarted = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(findTool(restarted, 'alpha')?.name).toBe('alpha');
    expect(() => findTool(restarted, 'beta')).toThrow(/scan cache .* is damaged at entry 1 .*run the command again/);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(again.scanned_at).not.toBe(first.scanned_at);
    expect(again.tools).toEqual(firstTools);
    // cut short, the file no longer adds up to its lengths: not read at all, scanned afresh
    await scanOnce(repo, { cacheDir: folder.cacheDir });
    await write(lines[2]!.slice(0, 20));
    const cut = await scanOnce(repo, { cacheDir: folder.cacheDir });
    expect(cut.scanned_at).not.toBe(again.scanned_at);
    expect(cut.tools).toEqual(firstTools);
  });

  it('rescans a new commit after a restart from the entries it parses from the cache as it would after a fresh scan', async () => {
    const repo = await initRepository(join(folder.path, 'repo'));
    await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta'), 'tools/broken/TOOL.hdlp': 'name: [' });
    await scanOnce(repo, { cacheDir: folder.cacheDir });
    const scanner = new Scanner({ repo, cacheDir: folder.cacheDir });
    const restarted = await scanner.scan();
    expect(findTool(restarted, 'beta')?.name).toBe('beta');
    await commitFiles(repo, { 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { why: 'changed' }) });
    const rescanned = await scanner.scan();
    await scanner.flush();
    const afresh = await scanOnce(repo, { cacheDir: join(folder.path, 'other-cache') });
    expect({ ...rescanned, scanned_at: '' }).toEqual({ ...afresh, scanned_at: '' });
    expect(findTool(rescanned, 'beta')?.why).toBe('changed');
    // what the rescan wrote (its unchanged entries as they were read) reads back the same
    expect({ ...(await scanOnce(repo, { cacheDir: folder.cacheDir })), scanned_at: '' }).toEqual({ ...afresh, scanned_at: '' });
  });

  it('keeps folders apart from each other', async () => {
    await mkdir(join(folder.path, 'a', 'tools', 'x'), { recursive: true });
    await writeFiles(folder.path, { 'a/tools/x/TOOL.hdlp': makeToolYaml('x'), 'b/tools/y/TOOL.hdlp': makeToolYaml('y') });
    expect((await scanOnce(join(folder.path, 'a'), { cacheDir: folder.cacheDir })).tools.map((tool) => tool.name)).toEqual(['x']);
    expect((await scanOnce(join(folder.path, 'b'), { cacheDir: folder.cacheDir })).tools.map((tool) => tool.name)).toEqual(['y']);
  });
});

// a stored index as a file of layout 10 kept it: without `params`
function withoutParams<Index>(index: Index): Index {
  const { params: _params, ...rest } = index as Index & { params?: unknown };
  return rest as Index;
}
