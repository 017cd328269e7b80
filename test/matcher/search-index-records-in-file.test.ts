import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, searchIndexFiles, type Matcher, loadLexicon } from '../../src/matcher/index.js';
import { makeTempDir } from '../helpers/git.js';
import { scanStarterTools } from './helpers.js';

const INTENTS = ['read the file README.md', 'show the last commits', 'tell me a joke', 'list the files in /tmp'];

/** Everything an answer shows, for comparing two matchers. */
function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) }));
}

let temp: { path: string; cleanup: () => Promise<void> };
let starter: ToolIndex;
beforeAll(async () => {
  // the starter tools' examples have Chinese words: two matchers compared at different moments would differ in whether
  // the dictionary had been read (a provisional calibration, then a final one); read it first
  await loadLexicon();
  starter = await scanStarterTools();
});
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.cleanup();
});

// issue #18: a restart read every record's numbers from the kept file (42 MB at 100,000 tools) before matching was ready
describe('a search index read from its file', () => {
  describe('when its records are asked for after the file was removed (pruned, or the cache folder cleaned)', () => {
    it('reads them from the file it kept open, and answers as a fresh build', async () => {
      const dir = join(temp.path, 'search');
      createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
      const fresh = answers(createMatcher(structuredClone(starter)).prepare());
      const kept = (await searchIndexFiles(dir).readLettingGo(starter))!;
      const keptSync = searchIndexFiles(dir).read(starter)!;
      for (const name of await readdir(dir)) await rm(join(dir, name));
      expect(kept).toBeDefined();
      for (const read of [kept, keptSync]) {
        // the records, each made once: the same object when asked for again
        expect(read.search.records.at(3)).toBe(read.search.records.at(3));
        const restarted = createMatcher(structuredClone(starter), { searchFiles: { ...searchIndexFiles(dir), read: () => read } });
        expect(answers(restarted.prepare())).toEqual(fresh);
      }
    });
  });

  describe('when one record is asked for', () => {
    it('reads that record alone: its numbers are an array of their own, not a view of every record', async () => {
      const dir = join(temp.path, 'search');
      createMatcher(starter, { searchFiles: searchIndexFiles(dir) }).prepare();
      const { search } = (await searchIndexFiles(dir).readLettingGo(starter))!;
      const last = search.records.length - 1;
      const record = search.records.at(last)!;
      expect(record.data.buffer.byteLength).toBe(record.data.byteLength);
      expect(search.records.sizeAt(last)).toBe(record.data.length);
    });
  });
});
