import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eachTool, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, createMatcherLettingGo, searchIndexFiles, type Matcher } from '../../src/matcher/index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';
import { changesWhileDown, TOPIC_INTENTS, topicToolDefinition as definition, topicToolFiles, topicToolName as nameOf } from '../helpers/topic-tools.js';

// Issue #18: a restart onto a commit newer than the scan cache's patched the cached scan (only the changed entries
// read), but the search index was kept per commit, so matching-ready built it again from every definition (~35 s of
// CPU at 100,000 tools). The older scan's kept index is now read and updated with the tools changed, measured, and kept
// for the new commit. And the calibration's per-tool numbers are kept with the index, so that the first rescan after a
// start reads only the tools it changes, as later ones do.

const TOOLS = 1_000;
// what the calibration reads of the tools it samples: at most 128 texts sampled, and the tool of each of at most 64
// probes analysed without its text
const SAMPLE_READS = 128 + 64;

/** Everything an answer shows, the calibration included. */
function answers(matcher: Matcher): unknown[] {
  return TOPIC_INTENTS.map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) }));
}

/** The same index with its tools in a plain list (a fresh start that reads them all). */
function builtWhole(index: ToolIndex): ToolIndex {
  return { ...Object.fromEntries(Object.entries(Object.getOwnPropertyDescriptors(index)).filter(([key]) => key !== 'tools').map(([key, descriptor]) => [key, descriptor.value])), tools: [...eachTool(index)] } as ToolIndex;
}

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-search-restart-newer-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

async function startedOnAhead(prepare: (matcher: Matcher) => Promise<Matcher>): Promise<{ repo: string; cacheDir: string; searchDir: string; scanner: Scanner; restarted: ToolIndex; matcher: Matcher; parsed: number }> {
  const files = topicToolFiles(TOOLS);
  const { repo, cacheDir, warm } = await warmScanner(temp.path, files);
  const searchDir = join(temp.path, 'search');
  // the first start builds its search index, calibrates and keeps both (and warms the process up)
  await createMatcher(warm, { searchFiles: searchIndexFiles(searchDir) }).prepareLettingGo();
  // the repository moves on while no process runs
  await commitFiles(repo, changesWhileDown(), 'while down');
  const scanner = new Scanner({ repo, cacheDir });
  const restarted = await scanner.scan();
  await scanner.flush();
  const counted = countingEntriesParsed();
  const matcher = await prepare(createMatcher(restarted, { searchFiles: searchIndexFiles(searchDir) }));
  const parsed = counted.parsed();
  vi.restoreAllMocks();
  return { repo, cacheDir, searchDir, scanner, restarted, matcher, parsed };
}

describe('a search index kept on disk', () => {
  describe.each([
    { way: 'prepareLettingGo (a server)', prepare: (matcher: Matcher) => matcher.prepareLettingGo() },
    { way: 'ready (the CLI)', prepare: (matcher: Matcher) => matcher.ready() },
  ])('when a process restarts onto a newer commit and prepares with $way', ({ prepare }) => {
    it('updates the older commit\'s kept index with the tools changed, answers as a fresh build, and keeps it for the new commit', async () => {
      const { repo, cacheDir, searchDir, restarted, matcher, parsed } = await startedOnAhead(prepare);
      // the changed tools and the calibration's sample; on main every one of the 1,000 for the build
      expect(parsed).toBeLessThan(SAMPLE_READS + 10);
      expect(answers(matcher)).toEqual(answers(createMatcher(builtWhole(restarted)).prepare()));
      expect(matcher.explainIntent('open the payroll').calibration.probes).toBeGreaterThan(0);
      expect(await readdir(searchDir)).toHaveLength(2);

      // a restart over the new commit reads the file kept for it: no definition made
      const again = await new Scanner({ repo, cacheDir }).scan();
      expect(again.commit).toBe(restarted.commit);
      const counted = countingEntriesParsed();
      const ready = await createMatcher(again, { searchFiles: searchIndexFiles(searchDir) }).prepareLettingGo();
      expect(counted.parsed()).toBe(0);
      vi.restoreAllMocks();
      expect(answers(ready)).toEqual(answers(createMatcher(builtWhole(again)).prepare()));
    });
  });

  describe('when the first rescan after a start changes one definition', () => {
    it('reads only the changed tool for its calibration, the others\' numbers kept with the index', async () => {
      const files = topicToolFiles(TOOLS);
      const { repo, cacheDir, warm } = await warmScanner(temp.path, files);
      const searchFiles = searchIndexFiles(join(temp.path, 'search'));
      await createMatcher(warm, { searchFiles }).prepareLettingGo();
      // a restart over the same commit: everything read from the kept file
      const scanner = new Scanner({ repo, cacheDir });
      const started = await createMatcher(await scanner.scan(), { searchFiles }).prepareLettingGo();

      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: definition(3, 'sort the parcels of the harbour') });
      const next = await scanner.scan();
      await scanner.flush();
      const counted = countingEntriesParsed();
      const rescanned = await createMatcherLettingGo(next, { searchFiles, previous: started });
      // the calibration's sample (the changed tool is held by the patch); on main every tool was read for its counts
      expect(counted.parsed()).toBeLessThan(SAMPLE_READS + 5);
      vi.restoreAllMocks();
      expect(answers(rescanned)).toEqual(answers(createMatcher(builtWhole(next)).prepare()));
    });
  });
});
