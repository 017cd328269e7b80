import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eachTool, findTool, toolsOf, type ToolIndex } from '../../src/core/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';

// Issue #18: the first name that is no tool's made the alias table by making every definition of an index served from
// the scan cache once (~1.6 s of CPU at 100,000 tools). The cache keeps each tool's aliases beside its name: the table
// is read from them, and only the near names' tools are made, for their display.

const TOOLS = 200;
const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;
// an alias four tools claim (the first keeps it), one that is another tool's name (its tool does not keep it)
const aliasesOf = (at: number): string => (at % 50 === 0 ? `[shared-alias, 别名${nameOf(at)}]` : at === 7 ? `[${nameOf(8)}, seventh]` : `[${nameOf(at)}-alias, Handy ${at}]`);

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-alias-table-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

/** The same index with its tools in a plain list: what the answers must equal. */
function builtWhole(index: ToolIndex): ToolIndex {
  return { ...Object.fromEntries(Object.entries(Object.getOwnPropertyDescriptors(index)).filter(([key]) => key !== 'tools').map(([key, descriptor]) => [key, descriptor.value])), tools: [...eachTool(index)] } as ToolIndex;
}

const NAMES = ['tool-0012x', 'handy 13', 'shared-alias', 'SEVENTH', 'tool-0008', '别名tool-0050', 'nothing-like-it', 'tool-0199-alias'];

function warmIndex(): ReturnType<typeof warmScanner> {
  const files: Record<string, string> = {};
  for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = makeToolYaml(nameOf(at), { aliases: aliasesOf(at) });
  return warmScanner(temp.path, files);
}

describe('lookup over an index served from the scan cache', () => {
  describe('when the name asked for is no tool\'s', () => {
    it('makes its alias table from the cache, the definitions made only the near names\', and answers as over the whole list', async () => {
      const { repo, scanner, warm } = await warmIndex();
      const counted = countingEntriesParsed();
      const matcher = createMatcher(warm);
      const answers = NAMES.map((name) => matcher.lookup(name, {}));
      const parsed = counted.parsed();
      vi.restoreAllMocks();
      // at most three near names a miss, each its display read from its tool (on main: all 200 for the table first)
      expect(parsed).toBeLessThanOrEqual(3 * NAMES.length);
      expect(parsed).toBeLessThan(TOOLS / 4);
      expect(Array.isArray(toolsOf(warm))).toBe(false);
      expect(answers).toEqual(NAMES.map((name) => createMatcher(builtWhole(warm)).lookup(name, {})));
      expect(answers.map((answer) => (answer.found ? answer.tool.name : null))).toEqual([null, 'tool-0013', 'tool-0000', 'tool-0007', 'tool-0008', 'tool-0050', null, 'tool-0199']);

      // and after a rescan that patched one definition in, the new index's table is read from the same cache
      await commitFiles(repo, { [`tools/${nameOf(13)}/TOOL.hdlp`]: makeToolYaml(nameOf(13), { aliases: aliasesOf(13), intent: 'changed' }) });
      const next = await scanner.scan();
      await scanner.flush();
      const again = countingEntriesParsed();
      const nextAnswers = NAMES.map((name) => createMatcher(next).lookup(name, {}));
      expect(again.parsed()).toBeLessThan(TOOLS / 4);
      vi.restoreAllMocks();
      expect(nextAnswers).toEqual(NAMES.map((name) => createMatcher(builtWhole(next)).lookup(name, {})));
      expect(findTool(next, nameOf(13))?.intent).toBe('changed');
    });
  });
});
