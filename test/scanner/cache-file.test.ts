import { readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCacheFile, writeCacheFile, type CacheHeader } from '../../src/scanner/cache-file.js';
import { Scanner } from '../../src/scanner/index.js';
import { restoreIndex, type StoredIndex } from '../../src/scanner/stored-index.js';
import { findTool } from '../../src/core/index.js';
import type { ScanEntry } from '../../src/scanner/build-index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';
import { cacheFileParts, layout5Of, layout6Of, type CacheFileParts } from '../helpers/scan-cache-layout.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.cleanup();
});

const failed = (index: number, message: string): ScanEntry => ({ folder: `t${index}`, oid: `oid-${index}`, tool: null, diagnostics: [{ file: `tools/t${index}/TOOL.hdlp`, line: 1, column: 1, severity: 'error', code: 'YAML_SYNTAX', message }] });
const header = (entries: number): CacheHeader => ({ parser: 'p', source: 's', commit: 'c', scanned_at: '2026-01-01T00:00:00Z', entries });

describe('readCacheFile', () => {
  it('reads back every entry as written, one at a time in any order or all at once, whatever text they hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 3000 }), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), async (messages, asked) => {
        const path = join(temp.path, 'scan.json');
        const entries = messages.map((message, index) => failed(index, message));
        await writeCacheFile(path, header(entries.length), undefined, entries);
        const file = (await readCacheFile(path, 'p'))!;
        expect(file.header).toEqual(header(entries.length));
        for (const position of asked) expect(file.entries.at(position % Math.max(1, entries.length))).toEqual(entries[position % Math.max(1, entries.length)]);
        expect(file.entries.all()).toEqual(entries);
      }),
      { numRuns: runs(40) },
    );
  });

  it('reads entries larger than a block read, and many across blocks', async () => {
    const path = join(temp.path, 'scan.json');
    const entries = [failed(0, 'x'.repeat(3 << 20)), ...Array.from({ length: 3000 }, (_, index) => failed(index + 1, `${'y'.repeat(500)} ${index}`)), failed(3001, 'z'.repeat(2 << 20))];
    await writeCacheFile(path, header(entries.length), undefined, entries);
    const file = (await readCacheFile(path, 'p'))!;
    expect(file.entries.at(3001)).toEqual(entries[3001]);
    expect(file.entries.at(1500)).toEqual(entries[1500]);
    expect(file.entries.all()).toEqual(entries);
  });

  describe('when entries read from one file are written to another', () => {
    const written = (count: number): ScanEntry[] => Array.from({ length: count }, (_, index) => failed(index, `message ${index} ${'é'.repeat(index % 7)}`));

    it.each([
      ['to another path, the file read from then removed', 'next.json', async (path: string) => rm(path)],
      ['to the path it was read from', 'scan.json', async () => undefined],
      // its lines no longer where the entries were read from: each such entry is written from its object instead
      ['after the file read from was cut short in place', 'next.json', async (path: string) => truncate(path, 200)],
      ['after the file read from was emptied in place', 'next.json', async (path: string) => truncate(path, 0)],
    ])('writes them as they were %s, with entries made since between them, and so on over writes', async (_case, next, change) => {
      const path = join(temp.path, 'scan.json');
      const entries = written(2500);
      await writeCacheFile(path, header(entries.length), undefined, entries);
      const read = (await readCacheFile(path, 'p'))!.entries.all();
      await change(path);
      // some read entries, in another order, with new ones among them
      const mixed = [failed(9000, 'new first'), ...read.slice(1000), failed(9001, 'new middle'), ...read.slice(0, 900).reverse(), failed(9002, 'new last')];
      const nextPath = join(temp.path, next);
      await writeCacheFile(nextPath, header(mixed.length), undefined, mixed);
      expect((await readCacheFile(nextPath, 'p'))!.entries.all()).toEqual(mixed);
      // written again from the file just written (each entry's text is now its line there), the earlier one gone
      const third = join(temp.path, 'third.json');
      if (nextPath !== path) await rm(path, { force: true });
      await writeCacheFile(third, header(1500), undefined, mixed.slice(0, 1500));
      await rm(nextPath);
      expect((await readCacheFile(third, 'p'))!.entries.all()).toEqual(mixed.slice(0, 1500));
    });
  });

  describe('when the file is not what this version writes', () => {
    it.each([
      ['written by another parser or format', async (path: string) => writeCacheFile(path, { ...header(2), parser: '3/other' }, undefined, [failed(0, 'a'), failed(1, 'b')])],
      // the layout before the lengths line: header, index, then the entries (same parser string, as a hand-copied file might have)
      ['in the layout before the lines\' lengths', async (path: string) => writeFile(path, `${JSON.stringify(header(2))}\nnull\n${JSON.stringify(failed(0, 'a'))}\n${JSON.stringify(failed(1, 'b'))}\n`)],
      // layout 4: header, index, lengths, then the entries (a file cut or grown by hand keeps its parser string)
      ['in the layout with the lengths before the entries', async (path: string) => writeFile(path, `${JSON.stringify(header(2))}\nnull\n[${JSON.stringify(failed(0, 'a')).length + 1},${JSON.stringify(failed(1, 'b')).length + 1}]\n${JSON.stringify(failed(0, 'a'))}\n${JSON.stringify(failed(1, 'b'))}\n`)],
      ['its trailer pointing before the index', async (path: string) => {
        await writeCacheFile(path, header(2), undefined, [failed(0, 'a'), failed(1, 'b')]);
        const text = await readFile(path, 'latin1');
        const start = Number.parseInt(text.slice(-17), 16);
        await writeFile(path, `${text.slice(0, -17)}${(start - 1).toString(16).padStart(16, '0')}\n`, 'latin1');
      }],
      ['its trailer pointing past the file', async (path: string) => {
        await writeCacheFile(path, header(2), undefined, [failed(0, 'a'), failed(1, 'b')]);
        const text = await readFile(path, 'latin1');
        await writeFile(path, `${text.slice(0, -17)}${'f'.repeat(16)}\n`, 'latin1');
      }],
      ['cut short', async (path: string) => {
        await writeCacheFile(path, header(2), undefined, [failed(0, 'a'), failed(1, 'b')]);
        const { size } = await import('node:fs/promises').then((fs) => fs.stat(path));
        await truncate(path, size - 3);
      }],
      ['longer than its lines', async (path: string) => {
        await writeCacheFile(path, header(2), undefined, [failed(0, 'a'), failed(1, 'b')]);
        await writeFile(path, `${await readFile(path, 'latin1')}${JSON.stringify(failed(2, 'c'))}\n`, 'latin1');
      }],
      ['empty', async (path: string) => writeFile(path, '')],
    ])('is a miss when %s', async (_case, write) => {
      const path = join(temp.path, 'scan.json');
      await write(path);
      expect(await readCacheFile(path, 'p')).toBeUndefined();
    });

    it('says an entry line that is not what its lengths say is damaged, and removes the file', async () => {
      const path = join(temp.path, 'scan.json');
      await writeCacheFile(path, header(2), undefined, [failed(0, 'aaaa'), failed(1, 'bbbb')]);
      // same length, other bytes: the line no longer parses
      await writeFile(path, (await readFile(path, 'latin1')).replace('"oid-1"', '{oid-1}'), 'latin1');
      const file = (await readCacheFile(path, 'p'))!;
      expect(file.entries.at(0)).toEqual(failed(0, 'aaaa'));
      expect(() => file.entries.at(1)).toThrow(/is damaged at entry 1/);
      expect(await readCacheFile(path, 'p')).toBeUndefined();
    });
  });
});

// Issue #18: a server saving a newer commit's scan cache makes the tail's texts UTF-8 a piece at a time (the event loop
// let go between pieces); the pieces must be the text's very bytes, a character of two UTF-16 units never split
describe('a scan cache file whose stored index holds texts of several pieces', () => {
  it('reads its names, aliases and facts back as written, characters of every width across the pieces\' ends', async () => {
    const path = join(temp.path, 'scan.json');
    const entries = [failed(0, 'x'), failed(1, 'y')];
    // 'é' is 2 bytes of UTF-8, '😀' 4 (two UTF-16 units): at odd and even offsets, one straddles each piece's end
    const text = (seed: string): string => `${seed}${'aé😀'.repeat(300_000)}${seed}`;
    const index: StoredIndex = { positions: Uint32Array.from([0, 1]), aliases: [[1, ['ü']]], names: ['t0', 't1'], kinds: 'nn', toolAliases: text('['), facts: text('{'), toolsets: [], skills: [], errors: [], warnings: [] };
    for (const shifted of [index, { ...index, toolAliases: `a${index.toolAliases!}`, facts: `bb${index.facts!}` }]) {
      await writeCacheFile(path, header(entries.length), shifted, entries);
      const file = (await readCacheFile(path, 'p'))!;
      expect(file.index!.toolAliases).toBe(shifted.toolAliases);
      expect(file.index!.facts).toBe(shifted.facts);
      expect(file.index!.names).toEqual(['t0', 't1']);
      expect(file.index!.aliases).toEqual([[1, ['ü']]]);
      expect(file.entries.all()).toEqual(entries);
    }
  });
});

describe('a scan cache file whose tail\'s numbers were changed after it was written', () => {
  it('is a miss, or its index is not trusted, or each entry and tool reads back as written or says it is damaged: never another', async () => {
    const repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, {
      'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '[shared]' }),
      'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[shared, other]' }),
      'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'telepathy' }),
      'tools/gamma/TOOL.hdlp': makeToolYaml('gamma'),
      'tools/delta/TOOL.hdlp': makeToolYaml('delta'),
    });
    const cacheDir = join(temp.path, 'cache');
    const scanner = new Scanner({ repo, cacheDir });
    await scanner.scan();
    await scanner.flush();
    const folder = await findIndexFolder(cacheDir);
    const [name] = await readdir(folder);
    const file = await readFile(join(folder, name!));
    const { parser } = JSON.parse(file.toString('latin1', 0, file.indexOf(0x0a))) as CacheHeader;
    const read = async (path: string) => {
      const cache = await readCacheFile(path, parser);
      return { cache, index: cache?.index && restoreIndex(cache.index, cache.entries, { source: 's', commit: 'c', scanned_at: 't' }) };
    };
    const copy = join(temp.path, 'copy.json');
    await writeFile(copy, file);
    const written = await read(copy);
    const entries = written.cache!.entries.all();
    const tools = written.index!.tools;
    expect(tools.map((tool) => [tool.name, tool.aliases])).toEqual([['alpha', ['shared']], ['beta', ['other']], ['delta', []], ['gamma', []]]);
    // the numbers: from after the tail's line to the names (where each line starts, the tools' positions, the kinds)
    const tailStart = Number.parseInt(file.toString('latin1', file.length - 17, file.length - 1), 16);
    const numbersStart = file.indexOf(0x0a, tailStart) + 1;
    const numbersEnd = numbersStart + 8 * (entries.length + 1) + 4 * tools.length + entries.length;
    const same = <T>(made: () => T, expected: T): void => {
      let value: T;
      try {
        value = made();
      } catch (error) {
        expect((error as Error).message).toMatch(/is damaged at entry/);
        return;
      }
      expect(value).toEqual(expected);
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: numbersStart, max: numbersEnd - 1 }), fc.integer({ min: 1, max: 255 }), async (at, mask) => {
        const changed = Buffer.from(file);
        changed[at] = changed[at]! ^ mask;
        await writeFile(copy, changed);
        const { cache, index } = await read(copy);
        if (!cache) return;
        for (let position = 0; position < entries.length; position++) same(() => cache.entries.peek(position), entries[position]);
        if (!index) return;
        for (const tool of tools) same(() => findTool(index, tool.name), tool);
      }),
      { numRuns: runs(300) },
    );
  });
});

describe('Scanner over a scan cache in an older layout', () => {
  const layout5 = (parts: CacheFileParts, parser: string): Buffer => Buffer.from(layout5Of(parts, parser).replaceAll('alpha', 'omega'), 'latin1');
  const layout6 = (parts: CacheFileParts, parser: string): Buffer => Buffer.from(layout6Of(parts, parser).toString('latin1').replaceAll('alpha', 'omega'), 'latin1');
  it.each([
    ['5 (the index and the lines\' lengths as JSON)', 'under the parser string of its own version', layout5, (parser: string) => parser.replace(/^11\//, '5/')],
    // as a file copied by hand, or a version that changed the layout and forgot to change the format number, would be
    ['5 (the index and the lines\' lengths as JSON)', 'under this version\'s parser string', layout5, (parser: string) => parser],
    ['6 (the aliases\' text inside the tail\'s line)', 'under the parser string of its own version', layout6, (parser: string) => parser.replace(/^11\//, '6/')],
    ['6 (the aliases\' text inside the tail\'s line)', 'under this version\'s parser string', layout6, (parser: string) => parser],
  ])('rebuilds one of layout %s %s instead of reading it, and serves what the repository holds', async (_layout, _case, layoutOf, parserOf) => {
    const repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { aliases: '[shared]' }), 'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[shared, other]' }) });
    const cacheDir = join(temp.path, 'cache');
    const first = new Scanner({ repo, cacheDir });
    // made now: a cold scan serves its tools from the file it wrote, which only this test changes in place
    const { tools } = await first.scan();
    await first.flush();
    const folder = await findIndexFolder(cacheDir);
    const [name] = await readdir(folder);
    const parts = cacheFileParts(await readFile(join(folder, name!)));
    const parser = (JSON.parse(parts.header) as CacheHeader).parser;
    expect(parser).toMatch(/^11\//);
    // beta kept one alias of two: the one alpha, first by name, holds
    expect(parts.tailLine.aliases).toEqual([[1, ['other']]]);
    expect(JSON.parse(parts.toolAliases!)).toEqual([['shared'], ['other']]);
    // the same scan in the older layout, its tools renamed
    await writeFile(join(folder, name!), layoutOf(parts, parserOf(parser)));
    const again = await new Scanner({ repo, cacheDir }).scan();
    expect(again.tools.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    expect(again.tools).toEqual(tools);
    // rebuilt in this layout, and read back from it as scanned
    expect(JSON.parse(cacheFileParts(await readFile(join(folder, name!))).header)).toMatchObject({ parser });
    expect((await new Scanner({ repo, cacheDir }).scan()).tools).toEqual(tools);
  });
});

async function findIndexFolder(cacheDir: string): Promise<string> {
  const sources = join(cacheDir, 'sources');
  const [source] = await readdir(sources);
  return join(sources, source!, 'index');
}
