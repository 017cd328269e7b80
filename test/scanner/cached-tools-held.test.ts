import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTool, toolsOf, type ToolDefinition } from '../../src/core/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { warmScanner } from '../helpers/warm-cache.js';

// Issue #18: a server from a warm scan cache holds no definition it is not using; a definition made again from the
// cache's line after a collection must still be known as the same tool (the matcher keeps its analysis) and as the
// same entry (the cache written after a rescan maps the index's tools to the scan's entries).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
// more tools than an index keeps of those it made lately
const TOOLS = 400;

let temp: { path: string; cleanup: () => Promise<void> };
const warnings: string[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning.message);
};
beforeEach(async () => {
  temp = await makeTempDir('hldp-held-');
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await temp.cleanup();
});

const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;

describe('Scanner serving tools from a warm scan cache', () => {
  describe('when the tools it made are collected and a rescan follows', () => {
    it('makes them again as the same tools: the matcher keeps their analysis, and the scan is cached again', async () => {
      const files: Record<string, string> = {};
      for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = makeToolYaml(nameOf(at), { intent: `handles job ${at}`, aliases: `[${nameOf(at)}-alias]` });
      const { repo, cacheDir, scanner, warm } = await warmScanner(temp.path, files);
      const search = buildSearchIndex(toolsOf(warm));
      // one tool held (as a validator holds the tools it compiled for), the rest let go
      const held: ToolDefinition = findTool(warm, nameOf(7))!;
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();

      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: makeToolYaml(nameOf(3), { intent: 'handles something else' }) });
      const next = await scanner.scan();
      await scanner.flush();
      expect(warnings.filter((message) => message.includes('index cache not written'))).toEqual([]);
      expect(findTool(next, nameOf(7))).toBe(held);

      const updated = updateSearchIndex(search, toolsOf(next));
      for (let at = 0; at < TOOLS; at++) {
        if (at === 3) expect(updated.records.at(at)).not.toBe(search.records.at(at));
        else expect(updated.records.at(at)).toBe(search.records.at(at));
      }
      // and the cache written after the rescan serves that commit as a fresh scan does
      const again = await new Scanner({ repo, cacheDir }).scan();
      expect(again.tools).toEqual(next.tools);
      expect(findTool(again, nameOf(3))?.intent).toBe('handles something else');
    });
  });
});
