import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { searchIndexFiles } from '../../src/matcher/index.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { makeTempDir } from '../helpers/git.js';
import { makeToolDefinition, scanStarterTools } from './helpers.js';

const WORDS = ['read', 'write', 'list', 'delete', 'file', 'folder', 'commit', 'branch', 'weather', 'city', 'invoice', 'customer', 'report', 'deploy', 'service', 'log'];

let index: ToolIndex;
let search: SearchIndex;
beforeAll(async () => {
  const scanned = await scanStarterTools();
  // enough tools that the postings' entries span several of the writer's pieces (65,536 numbers each)
  const tools = Array.from({ length: 3000 }, (_, n) => {
    const words = Array.from({ length: 12 }, (_, k) => WORDS[(n * 7 + k * 3) % WORDS.length]);
    return makeToolDefinition({ name: `tool-${String(n).padStart(5, '0')}`, intent: `${words.join(' ')} number ${n}`, examples: [`${words.slice(0, 4).join(' ')} for me`] });
  });
  index = { ...scanned, commit: 'pieces', tools };
  search = buildSearchIndex(tools);
});

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-search-file-letting-go-');
});
afterEach(() => temp.cleanup());

describe('SearchIndexFiles.writeLettingGo (a server keeping the index it built or updated)', () => {
  describe('when the index stays as it is', () => {
    it('writes the bytes write() writes, a piece at a time, the event loop turning between pieces', async () => {
      const whole = join(temp.path, 'whole');
      const pieces = join(temp.path, 'pieces');
      searchIndexFiles(whole).write(index, search, {});
      let turns = 0;
      const turning = setInterval(() => (turns += 1), 0);
      try {
        await searchIndexFiles(pieces).writeLettingGo(index, search, {}, () => true);
      } finally {
        clearInterval(turning);
      }
      const [name] = await readdir(whole);
      expect(await readdir(pieces)).toEqual([name]);
      expect((await readFile(join(pieces, name!))).equals(await readFile(join(whole, name!)))).toBe(true);
      // a write in one piece lets no timer run until it is done
      expect(turns).toBeGreaterThan(1);
    });
  });

  describe('when the index changes while it is written', () => {
    it('keeps no file, torn or whole, and a later write keeps it', async () => {
      const dir = join(temp.path, 'search');
      let asked = 0;
      // unchanged for the first two pieces, then a successor updated it
      await searchIndexFiles(dir).writeLettingGo(index, search, {}, () => ++asked <= 2);
      expect(asked).toBeGreaterThan(2);
      expect(await readdir(dir)).toEqual([]);
      await searchIndexFiles(dir).writeLettingGo(index, search, {}, () => true);
      expect(await readdir(dir)).toHaveLength(1);
    });
  });
});
