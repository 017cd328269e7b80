import { readdir, readFile, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolDefinition, ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, searchIndexFiles, type Matcher, loadLexicon } from '../../src/matcher/index.js';
import { decodeSearchIndexFile, encodeSearchIndexFile, type DecodedSearchIndexFile } from '../../src/matcher/search-index-layout.js';
import { splitNames, type StoredSearchIndex } from '../../src/matcher/stored-search-index.js';
import { makeTempDir } from '../helpers/git.js';
import { makeToolDefinition, scanStarterTools } from './helpers.js';

const INTENTS = ['查看最近的提交记录', '读取配置文件', 'покажи последние коммиты', 'read the file README.md', 'get the weather forecast for Tokyo', 'convert 100 USD to EUR', 'tell me a joke'];

/** Everything an answer shows, for comparing two matchers. */
function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => {
    const { found, confidence, ranked } = matcher.explainIntent(intent);
    return { intent, found, confidence, shown: ranked.map(({ tool, score, probability, matched }) => ({ name: tool.name, score, probability, matched })), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) };
  });
}

/** A kept file's content, decoded from its bytes as the reader does from the file. */
function decodeBytes(bytes: Uint8Array): DecodedSearchIndexFile | undefined {
  const decoding = decodeSearchIndexFile(bytes.length);
  for (let step = decoding.next(0); ; ) {
    if (step.done) return step.value;
    const { into, position } = step.value;
    const piece = bytes.subarray(position, position + into.length);
    into.set(piece);
    step = decoding.next(piece.length);
  }
}

const joined = (pieces: Uint8Array[]): Buffer => Buffer.concat(pieces);

/** Writes `stored` at `path` as an earlier layout's writer wrote it: its arrays under a header with `measured` (or without), the names an array of strings. */
async function writeLayout(path: string, layout: number, { version, stored, measured }: Pick<DecodedSearchIndexFile, 'version' | 'stored'> & { measured?: object }): Promise<void> {
  const arrays = [stored.counts, stored.offsets, stored.data, ...Object.values(stored.postings)];
  const header = serialize({ version, byteOrder: endianness(), names: splitNames(stored.names), terms: stored.terms, lengths: arrays.map((array) => array.length), widths: arrays.map((array) => array.BYTES_PER_ELEMENT), ...(measured && { measured }) });
  const prefix = Buffer.alloc(16);
  prefix.write('hldpsix\n', 0, 'latin1');
  prefix.writeUInt32LE(layout, 8);
  prefix.writeUInt32LE(header.length, 12);
  const pad = (bytes: number): Buffer => Buffer.alloc((8 - (bytes % 8)) % 8);
  await writeFile(path, Buffer.concat([prefix, header, pad(16 + header.length), ...arrays.flatMap((array) => [Buffer.from(array.buffer, array.byteOffset, array.byteLength), pad(array.byteLength)])]));
}

let temp: { path: string; cleanup: () => Promise<void> };
let starter: ToolIndex;
beforeAll(async () => {
  // the starter tools' examples have Chinese words: two matchers compared at different moments would differ in whether
  // the dictionary had been read (a provisional calibration, then a final one); read it first
  await loadLexicon();
  const scanned = await scanStarterTools();
  // the starter tools and a few more, so that a rescan has something to add and to drop
  const extra = [
    makeToolDefinition({ name: 'weather-forecast', intent: 'get the weather forecast for the next days in a city', aliases: ['forecast'] }),
    makeToolDefinition({ name: 'currency-convert', intent: 'convert an amount of money from one currency to another', examples: ['convert 5 GBP to JPY'] }),
  ];
  starter = { ...scanned, tools: [...scanned.tools, ...extra].sort((a, b) => (a.name < b.name ? -1 : 1)) };
});
beforeEach(async () => {
  temp = await makeTempDir('hldp-search-file-');
});
afterEach(() => temp.cleanup());

describe('search indexes kept on disk', () => {
  it('are written by the first matcher that builds one, and a restart over the same scan reads it and answers exactly as a fresh build', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    expect(await readdir(dir)).toHaveLength(1);
    // a restart: the very same scan, read again from the scanner's cache (other objects, equal content)
    const restarted: ToolIndex = structuredClone(starter);
    expect(searchIndexFiles(dir).read(restarted)).toBeDefined();
    const restored = createMatcher(restarted, { searchFiles: searchIndexFiles(dir) }).prepare();
    expect(answers(restored)).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('are updated by a rescan from a restored index as from a built one, and the updated one is kept when the server stops', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const restored = createMatcher(structuredClone(starter), { searchFiles: searchIndexFiles(dir) }).prepare();
    // one tool changed, one gone, one new: the tools kept are the very objects of the restored index
    const changed: ToolDefinition[] = restored.index.tools
      .filter((tool) => tool.name !== 'currency-convert')
      .map((tool) => (tool.name === 'weather-forecast' ? { ...tool, intent: 'tell the weather of the coming week for a city' } : tool));
    changed.push(makeToolDefinition({ name: 'joke-teller', intent: 'tell a joke on a topic' }));
    changed.sort((a, b) => (a.name < b.name ? -1 : 1));
    const next: ToolIndex = { ...restored.index, commit: 'next', scanned_at: '2026-12-01T00:00:00.000Z', tools: changed };
    const updated = createMatcher(next, { previous: restored, searchFiles: searchIndexFiles(dir) });
    expect(answers(updated)).toEqual(answers(createMatcher(structuredClone(next)).prepare()));
    updated.persist();
    expect(await readdir(dir)).toHaveLength(2);
    expect(answers(createMatcher(structuredClone(next), { searchFiles: searchIndexFiles(dir) }).prepare())).toEqual(answers(updated));
  });

  it('are not used for another scan of the same commit, by another version of the matcher, or when torn', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const files = searchIndexFiles(dir);
    expect(files.read({ ...starter, scanned_at: '2030-01-01T00:00:00.000Z' })).toBeUndefined();
    expect(files.read({ ...starter, tools: starter.tools.slice(1) })).toBeUndefined();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const bytes = await readFile(path);
    const kept = decodeBytes(bytes)!;
    expect(splitNames(kept.stored.names)).toEqual(starter.tools.map((tool) => tool.name));
    await writeFile(path, joined([...encodeSearchIndexFile('an older matcher', kept.stored)]));
    expect(files.read(starter)).toBeUndefined();
    expect(await files.readLettingGo(starter)).toBeUndefined();
    // torn, or with bytes after its last array
    for (const damaged of [bytes.subarray(0, 1000), bytes.subarray(0, bytes.length - 4), Buffer.concat([bytes, Buffer.alloc(8)])]) {
      await writeFile(path, damaged);
      expect(files.read(starter)).toBeUndefined();
      expect(await files.readLettingGo(starter)).toBeUndefined();
    }
    await writeFile(path, bytes);
    expect(files.read(starter)).toBeDefined();
    // and a matcher over it builds its own, answering as ever
    expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
  });

  it.each([
    // layout 1: minisearch's own JSON and each record's minisearch id, no postings
    ['1 (minisearch JSON)', ({ names: joined, terms, counts, offsets, data }: StoredSearchIndex, version: string, names = splitNames(joined)) => serialize({ version, names, minisearch: JSON.stringify({ documentCount: 0, nextId: 0, index: [] }), terms, counts, ids: Int32Array.from(names, (_, at) => at + 100), offsets, data })],
    // layout 2: the same content as now, in one `v8.serialize`
    ['2 (one v8.serialize)', (stored: StoredSearchIndex, version: string) => serialize({ version, ...stored, names: splitNames(stored.names) })],
  ])('are a miss, never misread, when they hold the earlier layout %s under this version, and a matcher over one builds its own', async (_, earlier) => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const { version, stored } = decodeBytes(await readFile(path))!;
    await writeFile(path, earlier(stored, version));
    // what the earlier reader read: the file is of that layout
    expect(deserialize(await readFile(path))).toMatchObject({ version, names: splitNames(stored.names) });
    const files = searchIndexFiles(dir);
    expect(files.read(starter)).toBeUndefined();
    expect(await files.readLettingGo(starter)).toBeUndefined();
    expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
  });

  it('are a miss, never misread, when they hold the earlier layout 3 (every array of 32-bit numbers), and a matcher over one builds its own', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const { version, stored } = decodeBytes(await readFile(path))!;
    // layout 3 as its writer wrote it: the same prefix and header without the widths, then every array as 32-bit numbers
    const wide = [stored.counts, stored.offsets, stored.data, ...Object.values(stored.postings)].map((array) => Int32Array.from(array));
    const header = serialize({ version, byteOrder: endianness(), names: splitNames(stored.names), terms: stored.terms, lengths: wide.map((array) => array.length) });
    const prefix = Buffer.alloc(16);
    prefix.write('hldpsix\n', 0, 'latin1');
    prefix.writeUInt32LE(3, 8);
    prefix.writeUInt32LE(header.length, 12);
    const pad = (bytes: number): Buffer => Buffer.alloc((8 - (bytes % 8)) % 8);
    await writeFile(path, Buffer.concat([prefix, header, pad(16 + header.length), ...wide.flatMap((array) => [Buffer.from(array.buffer), pad(array.byteLength)])]));
    const files = searchIndexFiles(dir);
    expect(files.read(starter)).toBeUndefined();
    expect(await files.readLettingGo(starter)).toBeUndefined();
    expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
  });

  it('are a miss, never misread, when they hold the earlier layout 4 (nothing measured beside the index), and a matcher over one builds its own', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const { version, stored } = decodeBytes(await readFile(path))!;
    // layout 4 as its writer wrote it: this layout's arrays, as narrow, under a header without what was measured
    await writeLayout(path, 4, { version, stored });
    const files = searchIndexFiles(dir);
    expect(files.read(starter)).toBeUndefined();
    expect(await files.readLettingGo(starter)).toBeUndefined();
    expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
  });

  it('are a miss, never misread, when they hold the earlier layout 5 (no calibration basis beside the index), and a matcher over one builds its own', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const { version, stored, measured } = decodeBytes(await readFile(path))!;
    // layout 5 as its writer wrote it: this layout's arrays under a header measuring the calibration and Chinese probes only
    const { basis: _basis, ...withoutBasis } = measured;
    await writeLayout(path, 5, { version, stored, measured: withoutBasis });
    const files = searchIndexFiles(dir);
    expect(files.read(starter)).toBeUndefined();
    expect(await files.readLettingGo(starter)).toBeUndefined();
    expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
  });

  it('are a miss, never misread, when they hold the earlier layout 6 (the names an array of strings), and a matcher over one builds its own', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const [name] = await readdir(dir);
    const path = join(dir, name!);
    const { version, stored, measured } = decodeBytes(await readFile(path))!;
    // layout 6 as its writer wrote it: this layout's arrays and measures, the names a string each
    await writeLayout(path, 6, { version, stored, measured });
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const files = searchIndexFiles(dir);
      expect(files.read(starter)).toBeUndefined();
      expect(warnings).toHaveBeenCalledWith(expect.stringContaining('of layout 6, not 7'), expect.objectContaining({ code: 'HLDP_SEARCH_INDEX_REFUSED' }));
      expect(answers(createMatcher(starter, { searchFiles: files }).prepare())).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
    } finally {
      warnings.mockRestore();
    }
  });

  it.each(['prepare', 'prepareLettingGo'] as const)(
    'are removed when damaged, with the reason said, and the index built again is kept in their place (%s)',
    async (prepare) => {
      const dir = join(temp.path, 'search');
      createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
      const [name] = await readdir(dir);
      const path = join(dir, name!);
      const bytes = await readFile(path);
      const otherLayout = Buffer.from(bytes);
      otherLayout.writeUInt32LE(6, 8);
      const badHeader = Buffer.from(bytes);
      badHeader.fill(0xff, 16, 48);
      const damages: Array<[Buffer, string]> = [
        [bytes.subarray(0, bytes.length - 4), `its arrays end at byte ${bytes.length}, not at its end (${bytes.length - 4} bytes)`],
        [bytes.subarray(0, 10), 'cut short (10 bytes)'],
        [otherLayout, 'of layout 6, not 7'],
        [badHeader, 'its header does not parse'],
      ];
      const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      try {
        for (const [damaged, reason] of damages) {
          await writeFile(path, damaged);
          warnings.mockClear();
          const files = searchIndexFiles(dir);
          const matcher = createMatcher(starter, { searchFiles: files });
          const prepared = prepare === 'prepare' ? matcher.prepare() : await matcher.prepareLettingGo();
          expect(warnings).toHaveBeenCalledWith(expect.stringContaining(`search index file ${path} not read (${reason}`), expect.objectContaining({ code: 'HLDP_SEARCH_INDEX_REFUSED' }));
          expect(answers(prepared)).toEqual(answers(createMatcher(structuredClone(starter)).prepare()));
          // kept again at its path: the next start reads it instead of building the index once more
          expect(await readdir(dir)).toEqual([name]);
          expect(files.read(starter)).toBeDefined();
        }
      } finally {
        warnings.mockRestore();
      }
    },
  );

  it('keep codes, field lengths and records as narrow as they fit, and a rescan bringing larger ones widens them and answers as a fresh build', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const restored = createMatcher(structuredClone(starter), { searchFiles: searchIndexFiles(dir) }).prepare();
    const before = searchIndexFiles(dir).read(starter)!.search;
    expect(before.engine.postings.codes).toBeInstanceOf(Uint8Array);
    expect(before.engine.postings.fieldLengths).toBeInstanceOf(Uint8Array);
    expect([...before.records].every((record) => record.data instanceof Uint16Array)).toBe(true);
    // a word 20 times in one field (a code past a byte) and a description of 300 distinct words (a field length past one)
    const long = makeToolDefinition({
      name: 'long-winded',
      intent: `${'forecast '.repeat(20)}the weather`,
      why: Array.from({ length: 300 }, (_, at) => `word${String.fromCharCode(97 + (at % 26))}${String.fromCharCode(97 + Math.floor(at / 26))}`).join(' '),
    });
    const tools = [...restored.index.tools, long].sort((a, b) => (a.name < b.name ? -1 : 1));
    const next: ToolIndex = { ...restored.index, commit: 'next', scanned_at: '2026-12-01T00:00:00.000Z', tools };
    const updated = createMatcher(next, { previous: restored, searchFiles: searchIndexFiles(dir) });
    expect(answers(updated)).toEqual(answers(createMatcher(structuredClone(next)).prepare()));
    for (const intent of ['forecast the weather', 'wordaa wordbb wordkl']) expect(updated.explainIntent(intent)).toEqual(createMatcher(structuredClone(next)).prepare().explainIntent(intent));
    updated.persist();
    const kept = searchIndexFiles(dir).read(next)!.search;
    expect(kept.engine.postings.codes).toBeInstanceOf(Uint16Array);
    expect(kept.engine.postings.fieldLengths).toBeInstanceOf(Uint16Array);
    expect(answers(createMatcher(structuredClone(next), { searchFiles: searchIndexFiles(dir) }).prepare())).toEqual(answers(updated));
  });

  it('are read into arrays that each hold only their own numbers, the records views of one array of their data (no buffer of the whole file kept)', async () => {
    const dir = join(temp.path, 'search');
    createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
    const fileBytes = (await readFile(join(dir, (await readdir(dir))[0]!))).length;
    for (const { search } of [searchIndexFiles(dir).read(starter)!, (await searchIndexFiles(dir).readLettingGo(starter))!]) {
      const { postings } = search.engine;
      for (const array of [postings.starts, postings.lengths, postings.fieldCounts, postings.slots, postings.codes, postings.fieldLengths, search.engine.documentFrequency.counts]) {
        expect(array.byteOffset).toBe(0);
        expect(array.buffer.byteLength).toBe(array.byteLength);
        expect(array.buffer.byteLength).toBeLessThan(fileBytes);
      }
      const buffers = new Set(search.records.map((record) => record.data.buffer));
      expect(buffers.size).toBe(1);
      const [data] = buffers;
      expect(data!.byteLength).toBe([...search.records].reduce((sum, record) => sum + record.data.byteLength, 0));
    }
  });
});
