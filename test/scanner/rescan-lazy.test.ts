import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eachTool, findTool, toolsOf, type ToolIndex } from '../../src/core/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner as warmCache } from '../helpers/warm-cache.js';

// Issue #18: a server serving a warm scan cache (each definition made from its line when asked for) made every
// definition on the first rescan of a new commit, and kept them: the rescan keyed every cached entry, and the cache
// written after it read `index.tools`. A rescan of a few changed files makes only the entries it needs.

const TOOLS = 300;
// a full collection, as a server runs one sooner or later: the tools made and let go are made again when read
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;

let temp: { path: string; cleanup: () => Promise<void> };
const warnings: string[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning.message);
};
beforeEach(async () => {
  temp = await makeTempDir('hldp-rescan-lazy-');
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  vi.restoreAllMocks();
  await temp.cleanup();
});

/** The index without the moment it was made, its tools read one at a time. */
function comparable(index: ToolIndex): object {
  const { scanned_at: _scannedAt, tools: _tools, ...rest } = Object.getOwnPropertyDescriptors(index);
  return JSON.parse(JSON.stringify({ fields: Object.keys(rest), tools: [...eachTool(index)] }));
}

function warmScanner(): ReturnType<typeof warmCache> {
  const files: Record<string, string> = {};
  for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = makeToolYaml(nameOf(at), { intent: `handles job ${at}`, aliases: `[${nameOf(at)}-alias]` });
  return warmCache(temp.path, files);
}

describe('Scanner serving a warm scan cache', () => {
  describe('when one definition changes in place and it rescans', () => {
    it('makes only a handful of definitions, answers with the new one, and caches the commit as a fresh scan reads it', async () => {
      const { repo, cacheDir, scanner, warm } = await warmScanner();
      const unchanged = findTool(warm, nameOf(7))!;
      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: makeToolYaml(nameOf(3), { intent: 'handles something else', aliases: `[${nameOf(3)}-alias]` }) });

      const counted = countingEntriesParsed();
      const next = await scanner.scan();
      await scanner.flush();
      const parsed = counted.parsed();
      vi.restoreAllMocks();
      expect(warnings.filter((message) => message.includes('index cache not written'))).toEqual([]);
      // the changed entry's previous line, and a few looked at to find it: not the 300 (on main: every one, twice)
      expect(parsed).toBeLessThan(20);
      expect(Array.isArray(toolsOf(next))).toBe(false);

      expect(findTool(next, nameOf(3))?.intent).toBe('handles something else');
      expect(findTool(next, nameOf(7))).toBe(unchanged);
      expect(findTool(next, `${nameOf(3)}-alias`)).toBeUndefined();
      // the cache written after the rescan, read by a fresh scanner, is that commit's index
      const fresh = await new Scanner({ repo, cacheDir }).scan();
      expect(fresh.commit).toBe(next.commit);
      expect(comparable(fresh)).toEqual(comparable(next));
      expect(findTool(fresh, nameOf(3))?.intent).toBe('handles something else');
      expect(findTool(fresh, nameOf(4))?.intent).toBe('handles job 4');
    });

    it('has the search index updated with the changed tool alone, the others told by position', async () => {
      const { repo, scanner, warm } = await warmScanner();
      const search = buildSearchIndex(toolsOf(warm));
      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: makeToolYaml(nameOf(3), { intent: 'handles something else', aliases: `[${nameOf(3)}-alias]` }) });
      const next = await scanner.scan();
      await scanner.flush();
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
      const counted = countingEntriesParsed();
      const updated = updateSearchIndex(search, toolsOf(next));
      // on main every tool of both indexes was made to be compared: those collected were parsed again
      expect(counted.parsed()).toBeLessThan(5);
      vi.restoreAllMocks();
      for (let at = 0; at < TOOLS; at++) {
        if (at === 3) expect(updated.records.at(at)).not.toBe(search.records.at(at));
        else expect(updated.records.at(at)).toBe(search.records.at(at));
      }
      // a second rescan compares against the first's patch the same way
      await commitFiles(repo, { [`tools/${nameOf(9)}/TOOL.hdlp`]: makeToolYaml(nameOf(9), { intent: 'handles a third thing', aliases: `[${nameOf(9)}-alias]` }) });
      const third = await scanner.scan();
      await scanner.flush();
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
      const again = countingEntriesParsed();
      const twice = updateSearchIndex(updated, toolsOf(third));
      expect(again.parsed()).toBeLessThan(5);
      vi.restoreAllMocks();
      for (let at = 0; at < TOOLS; at++) {
        if (at === 9) expect(twice.records.at(at)).not.toBe(updated.records.at(at));
        else expect(twice.records.at(at)).toBe(updated.records.at(at));
      }
    });

    it('rescans again from the same cache file, each commit answered and cached as it is', async () => {
      const { repo, cacheDir, scanner } = await warmScanner();
      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: makeToolYaml(nameOf(3), { intent: 'first change', aliases: `[${nameOf(3)}-alias]` }) });
      await scanner.scan();
      await commitFiles(repo, { [`tools/${nameOf(250)}/TOOL.hdlp`]: makeToolYaml(nameOf(250), { intent: 'second change', aliases: `[${nameOf(250)}-alias]` }) });
      const counted = countingEntriesParsed();
      const second = await scanner.scan();
      await scanner.flush();
      expect(counted.parsed()).toBeLessThan(20);
      vi.restoreAllMocks();
      expect(Array.isArray(toolsOf(second))).toBe(false);
      expect(findTool(second, nameOf(3))?.intent).toBe('first change');
      expect(findTool(second, nameOf(250))?.intent).toBe('second change');
      const fresh = await new Scanner({ repo, cacheDir }).scan();
      expect(comparable(fresh)).toEqual(comparable(second));

      // a tool added: assembled again from the stored index's summaries and the entries changed
      await commitFiles(repo, { 'tools/zeta/TOOL.hdlp': makeToolYaml('zeta'), [`tools/${nameOf(3)}/TOOL.hdlp`]: makeToolYaml(nameOf(3), { intent: 'third change' }) });
      const third = await scanner.scan();
      await scanner.flush();
      expect(findTool(third, 'zeta')?.name).toBe('zeta');
      expect(findTool(third, nameOf(3))?.intent).toBe('third change');
      expect(findTool(third, nameOf(250))?.intent).toBe('second change');
      expect(comparable(await new Scanner({ repo, cacheDir }).scan())).toEqual(comparable(third));
      expect(warnings.filter((message) => message.includes('index cache not written'))).toEqual([]);
    });
  });
});
