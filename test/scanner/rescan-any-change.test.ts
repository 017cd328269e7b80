import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findTool, toolsOf, type ToolIndex } from '../../src/core/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { comparableIndex, countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';

// Issue #18: a rescan of an index served from the scan cache made only the entries it changed when definitions changed
// in place; a tool added, removed or renamed, an alias or group changed, a definition broken (and a start onto a newer
// commit) made and keyed every entry. Each is now a patch of the cached index that reads only the entries changed,
// and must give exactly a fresh scan's index.

const TOOLS = 300;
// a full collection, as a server runs one sooner or later: the tools made and let go are made again when read
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;
const policy = (name: string, tools: string) => `name: ${name}\nauthor: TEST-001\nwhy: tests need ${name}\naccess:\n  - tools: [${tools}]\n    roles: [trusted]\n`;
const toolset = (name: string, tools: string) => `name: ${name}\ndescription: work with ${name}\ntools: ${tools}\nauthor: TEST-001\nwhy: tests need ${name}\n`;
const skill = (name: string, toolsetName: string) => `---\nname: ${name}\ndescription: when asked about ${name}\ntoolset: ${toolsetName}\n---\n# ${name}\n\nDo the thing.\n`;
const tool = (at: number, overrides: Record<string, string> = {}): string =>
  makeToolYaml(nameOf(at), { intent: `handles job ${at}`, aliases: `[${nameOf(at)}-alias]`, ...(at % 50 === 0 ? { group: `group-${at / 50}` } : {}), ...overrides });

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-rescan-any-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

function startingFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'toolsets/ops/TOOLSET.hdlp': toolset('ops', `[${nameOf(10)}, group-1]`),
    'skills/ops/SKILL.md': skill('ops', 'ops'),
    'policies/writes.hdlp': policy('writes', `${nameOf(20)}, group-2`),
  };
  for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = tool(at);
  return files;
}

// `established`: the rescan keeps a name for the tool that served it; a fresh scan of the commit alone, which knows
// of no previous index, asks git history and keeps the same tool (before review Z, Z3 it gave it to the first by path),
// though its message says why otherwise; the restart from the file the rescan wrote keeps it too
const CHANGES: Array<{ kind: string; files: Record<string, string | null>; check: (index: ToolIndex) => void; established?: (fresh: ToolIndex) => void }> = [
  { kind: 'a tool added', files: { 'tools/tool-0150x/TOOL.hdlp': makeToolYaml('tool-0150x') }, check: (index) => expect(findTool(index, 'tool-0150x')).toBeDefined() },
  { kind: 'a tool removed', files: { [`tools/${nameOf(7)}/TOOL.hdlp`]: null }, check: (index) => expect(findTool(index, nameOf(7))).toBeUndefined() },
  {
    kind: 'a tool renamed (its folder moved)',
    files: { [`tools/${nameOf(8)}/TOOL.hdlp`]: null, 'tools/renamed/TOOL.hdlp': makeToolYaml('renamed', { aliases: `[${nameOf(8)}-alias]` }) },
    check: (index) => expect(findTool(index, 'renamed')?.aliases).toEqual([`${nameOf(8)}-alias`]),
  },
  {
    kind: 'a tool renamed in place, not its folder',
    files: { [`tools/${nameOf(9)}/TOOL.hdlp`]: tool(9, { name: 'other-name' }) },
    check: (index) => expect(index.errors.map((error) => error.code)).toContain('NAME_MISMATCH'),
  },
  { kind: 'an alias changed', files: { [`tools/${nameOf(11)}/TOOL.hdlp`]: tool(11, { aliases: '[eleven]' }) }, check: (index) => expect(findTool(index, nameOf(11))?.aliases).toEqual(['eleven']) },
  {
    kind: 'an alias taken from another tool',
    files: { [`tools/${nameOf(12)}/TOOL.hdlp`]: tool(12, { aliases: `[${nameOf(13)}-alias, ${nameOf(14)}]` }) },
    check: (index) => {
      expect(index.warnings.map((warning) => warning.code)).toContain('ALIAS_CONFLICT');
      expect(findTool(index, nameOf(13))?.aliases).toEqual([`${nameOf(13)}-alias`]);
    },
    established: (fresh) => {
      expect(findTool(fresh, nameOf(13))?.aliases).toEqual([`${nameOf(13)}-alias`]);
      expect(findTool(fresh, nameOf(12))?.aliases).toEqual([]);
    },
  },
  { kind: 'a group changed', files: { [`tools/${nameOf(100)}/TOOL.hdlp`]: tool(100, { group: 'group-9' }) }, check: (index) => expect(index.policies?.length).toBe(0) },
  {
    kind: 'a definition broken',
    files: { [`tools/${nameOf(15)}/TOOL.hdlp`]: 'name: tool-0015\nintent: [unclosed\n' },
    check: (index) => expect(index.errors.find((error) => error.file === `tools/${nameOf(15)}/TOOL.hdlp`)).toMatchObject({ line: expect.any(Number), code: expect.any(String) }),
  },
  {
    kind: 'a name taken but for its case by a folder sorted first',
    files: { 'tools/Tool-0016/TOOL.hdlp': makeToolYaml('Tool-0016') },
    check: (index) => {
      expect(findTool(index, nameOf(16))?.source.path).toBe(`tools/${nameOf(16)}/TOOL.hdlp`);
      expect(index.errors).toContainEqual(expect.objectContaining({ file: 'tools/Tool-0016/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining('it served that name at the previous commit') }));
    },
    established: (fresh) => {
      expect(findTool(fresh, nameOf(16))?.source.path).toBe(`tools/${nameOf(16)}/TOOL.hdlp`);
      expect(fresh.errors).toContainEqual(expect.objectContaining({ file: 'tools/Tool-0016/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining('it held that name first in git history') }));
    },
  },
  { kind: 'a toolset added and a skill removed', files: { 'toolsets/more/TOOLSET.hdlp': toolset('more', `[${nameOf(17)}, nope]`), 'skills/ops/SKILL.md': null }, check: (index) => expect(index.skills).toEqual([]) },
  {
    kind: 'tools added, removed and changed at once',
    files: { 'tools/zz-last/TOOL.hdlp': makeToolYaml('zz-last'), 'tools/aa-first/TOOL.hdlp': makeToolYaml('aa-first'), [`tools/${nameOf(299)}/TOOL.hdlp`]: null, [`tools/${nameOf(30)}/TOOL.hdlp`]: tool(30, { intent: 'changed too' }) },
    check: (index) => expect(findTool(index, nameOf(30))?.intent).toBe('changed too'),
  },
];

describe('Scanner serving a warm scan cache', () => {
  describe.each(CHANGES)('when $kind and it rescans', ({ files, check, established }) => {
    it('parses only the entries changed and a few looked at, and holds a fresh scan\'s index', async () => {
      const { repo, cacheDir, scanner } = await warmScanner(temp.path, startingFiles());
      await commitFiles(repo, files);
      const counted = countingEntriesParsed();
      const next = await scanner.scan();
      await scanner.flush();
      const parsed = counted.parsed();
      vi.restoreAllMocks();
      // the toolset, skill and policy, and ~9 entries looked at per change to find where it goes: on 50f6cad every one
      expect(parsed).toBeLessThan(50);
      expect(Array.isArray(toolsOf(next))).toBe(false);
      check(next);
      const fresh = await scanOnce(repo, { cacheDir: join(temp.path, 'fresh') });
      const restarted = await new Scanner({ repo, cacheDir }).scan();
      if (established) {
        established(fresh);
        expect(comparableIndex(restarted)).toEqual(comparableIndex(next));
        return;
      }
      expect(comparableIndex(next)).toEqual(comparableIndex(fresh));
      // and the cache file the rescan wrote is that commit's scan, read back as a restart reads it
      expect(comparableIndex(restarted)).toEqual(comparableIndex(fresh));
    });
  });

  describe('of a plain folder, when tools are added, removed and changed', () => {
    it('parses only those and a few looked at, and holds a fresh scan\'s index', async () => {
      const root = join(temp.path, 'folder');
      await writeFiles(root, startingFiles());
      const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, 'cache') });
      await scanner.scan();
      await scanner.flush();
      await writeFiles(root, { 'tools/aa-first/TOOL.hdlp': makeToolYaml('aa-first'), [`tools/${nameOf(40)}`]: null, [`tools/${nameOf(41)}/TOOL.hdlp`]: tool(41, { aliases: '[forty-one]' }) });
      const counted = countingEntriesParsed();
      const next = await scanner.scan();
      await scanner.flush();
      const parsed = counted.parsed();
      vi.restoreAllMocks();
      // on 50f6cad every entry (a folder's other folders listed no differences)
      expect(parsed).toBeLessThan(50);
      expect(findTool(next, nameOf(41))?.aliases).toEqual(['forty-one']);
      expect(comparableIndex(next)).toEqual(comparableIndex(await scanOnce(root, { cacheDir: join(temp.path, 'fresh') })));
    });
  });

  describe('when a tool is added and the search index is updated', () => {
    it('keeps every unchanged tool\'s record, found where it moved, making none of them', async () => {
      const { repo, scanner, warm } = await warmScanner(temp.path, startingFiles());
      const search = buildSearchIndex(toolsOf(warm));
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
      await commitFiles(repo, { 'tools/tool-0150x/TOOL.hdlp': makeToolYaml('tool-0150x'), [`tools/${nameOf(3)}/TOOL.hdlp`]: null });
      const counted = countingEntriesParsed();
      const next = await scanner.scan();
      await scanner.flush();
      const updated = updateSearchIndex(search, toolsOf(next));
      // the rescan's few, and none to update the search index: on 50f6cad every entry was made (and the tools of both
      // indexes compared by object)
      expect(counted.parsed()).toBeLessThan(50);
      vi.restoreAllMocks();
      // served from the cache file still (on 50f6cad an array of every definition, made and kept)
      expect(Array.isArray(toolsOf(next))).toBe(false);
      const previous = new Map(warm.tools.map((made, at) => [made.name, search.records.at(at)]));
      next.tools.forEach((made, at) => {
        if (made.name === 'tool-0150x') expect([...previous.values()]).not.toContain(updated.records.at(at));
        else expect(updated.records.at(at)).toBe(previous.get(made.name));
      });
    });
  });
});
