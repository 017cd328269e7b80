import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, searchIndexFiles, type Matcher, loadLexicon } from '../../src/matcher/index.js';
import { UnreadableList } from '../../src/matcher/kept-lists.js';
import { ARRAYS } from '../../src/matcher/search-index-layout.js';
import { rankTools } from '../../src/matcher/rank.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition, scanStarterTools } from './helpers.js';

// A restart leaves the postings' lists in the kept search index file and reads each at its first use (issue #18: a
// 100,000-tool restart read and checked ~38 MB of them before it could match). The checks the whole file had at a
// start still come before a list is read: a list naming a tool the file does not have refuses the file, which is
// removed and built again, never misread.

const INTENTS = ['查看最近的提交记录', '读取配置文件', 'read the file README.md', 'get the weather forecast for Tokyo', 'convert 100 USD to EUR', 'tell me a joke'];

/** Everything an answer shows, for comparing two matchers. */
function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => {
    const { found, confidence, ranked } = matcher.explainIntent(intent);
    return { intent, found, confidence, shown: ranked.map(({ tool, score, probability, matched }) => ({ name: tool.name, score, probability, matched })), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) };
  });
}

/** Where the slots array lies in a kept file's bytes (the layout's prefix, header, then each array 8-byte aligned). */
function slotsRegion(bytes: Buffer): { from: number; to: number } {
  const headerLength = bytes.readUInt32LE(12);
  const { lengths, widths } = deserialize(bytes.subarray(16, 16 + headerLength)) as { lengths: number[]; widths: number[] };
  const padded = (count: number): number => Math.ceil(count / 8) * 8;
  let at = padded(16 + headerLength);
  for (let index = 0; index < ARRAYS.length; index++) {
    if (ARRAYS[index] === 'slots') return { from: at, to: at + lengths[index]! * widths[index]! };
    at += padded(lengths[index]! * widths[index]!);
  }
  throw new Error('no slots array');
}

let temp: { path: string; cleanup: () => Promise<void> };
let tools: ToolIndex;
beforeAll(async () => {
  // the starter tools' examples have Chinese words: two matchers compared at different moments would differ in whether
  // the dictionary had been read (a provisional calibration, then a final one); read it first
  await loadLexicon();
  const scanned = await scanStarterTools();
  const extra = [makeToolDefinition({ name: 'weather-forecast', intent: 'get the weather forecast for the next days in a city', aliases: ['forecast'] })];
  tools = { ...scanned, tools: [...scanned.tools, ...extra].sort((a, b) => (a.name < b.name ? -1 : 1)) };
});
beforeEach(async () => {
  temp = await makeTempDir('hldp-kept-lists-');
});
afterEach(() => temp.cleanup());

/** Keeps the tools' search index in `dir`, and returns its file's path. */
async function keep(dir: string): Promise<string> {
  createMatcher(tools, { searchFiles: searchIndexFiles(dir) }).prepare();
  const [name] = await readdir(dir);
  return join(dir, name!);
}

describe('the postings lists of a kept search index', () => {
  it('are read from the file when a request first reads them, not at a restart, and the answers are a fresh build’s', async () => {
    const dir = join(temp.path, 'search');
    await keep(dir);
    for (const kept of [searchIndexFiles(dir).read(structuredClone(tools))!, (await searchIndexFiles(dir).readLettingGo(structuredClone(tools)))!]) {
      const { postings } = kept.search.engine;
      // left in the file: its slots not read yet
      expect(postings.kept).toBeDefined();
      expect(postings.slots.every((slot) => slot === 0)).toBe(true);
    }
    // one request reads its own words' lists, not all of them
    const { search } = searchIndexFiles(dir).read(structuredClone(tools))!;
    expect(rankTools(search, FITTED_RANKING, 'get the weather forecast for Tokyo').ranked.length).toBeGreaterThan(0);
    expect(search.engine.postings.kept).toBeDefined();
    const restored = createMatcher(structuredClone(tools), { searchFiles: searchIndexFiles(dir) }).prepare();
    expect(answers(restored)).toEqual(answers(createMatcher(structuredClone(tools)).prepare()));
  });

  it.each(['prepare', 'prepareLettingGo'] as const)('naming a tool the file does not have are refused at their first read, the file removed and the index built again (%s)', async (how) => {
    const dir = join(temp.path, 'search');
    const path = await keep(dir);
    const bytes = await readFile(path);
    const { from, to } = slotsRegion(bytes);
    // every slot names a tool far past the last
    for (let at = from; at < to; at += 4) bytes.writeInt32LE(1_000_000, at);
    await writeFile(path, bytes);
    const restarted = structuredClone(tools);
    // a restart reads the file (its lists left in it)
    expect(searchIndexFiles(dir).read(restarted)?.search.engine.postings.kept).toBeDefined();
    const matcher = how === 'prepare' ? createMatcher(restarted, { searchFiles: searchIndexFiles(dir) }).prepare() : await createMatcher(restarted, { searchFiles: searchIndexFiles(dir) }).prepareLettingGo();
    expect(answers(matcher)).toEqual(answers(createMatcher(structuredClone(tools)).prepare()));
    // the refused file is gone; the one kept in its place holds lists that name the tools
    const names = await readdir(dir);
    expect(names.every((name) => name.endsWith('.v8'))).toBe(true);
    for (const name of names) expect((await readFile(join(dir, name))).equals(bytes)).toBe(false);
  });

  it('read whole from a file with bytes changed anywhere in its slots either name only its tools or refuse it', async () => {
    const dir = join(temp.path, 'search');
    const path = await keep(dir);
    const original = await readFile(path);
    const { from, to } = slotsRegion(original);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: from, max: to - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), async (changes) => {
        const bytes = Buffer.from(original);
        for (const [at, value] of changes) bytes[at] = value;
        await writeFile(path, bytes);
        const kept = searchIndexFiles(dir).read(structuredClone(tools));
        expect(kept).toBeDefined();
        const { postings } = kept!.search.engine;
        let refused = false;
        try {
          for (const _ of postings.readAllSteps());
        } catch (error) {
          expect(error).toBeInstanceOf(UnreadableList);
          refused = true;
        }
        if (!refused) for (const slot of postings.slots) expect(slot >= 0 && slot < tools.tools.length).toBe(true);
      }),
      { numRuns: runs(40) },
    );
  });
});
