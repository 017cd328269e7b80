import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eachTool, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, FITTED_DECISION, FITTED_RANKING, searchIndexFiles, type Matcher } from '../../src/matcher/index.js';
import { decodeSearchIndexFile } from '../../src/matcher/search-index-layout.js';
import { Scanner } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';

// Issue #18: a server restarted over a kept search index still read every tool before it could match — the
// calibration counted each tool's examples and aliases, and the check for Chinese probes looked at each — and of an
// index served from the scan cache, read means made: at 100,000 tools ~1.5 s of CPU and ~200 MB of heap. What they
// measured is kept beside the index, and a restart reads no tool to prepare.

const TOPICS = ['weather', 'invoice', 'ledger', 'calendar', 'mailbox', 'printer', 'backup', 'deploy', 'ticket', 'payroll'];
const nameOf = (at: number): string => `tool-${String(at).padStart(3, '0')}`;
const toolFiles = (count: number, example: (at: number) => string): Record<string, string> => {
  const files: Record<string, string> = {};
  for (let at = 0; at < count; at++) {
    const topic = TOPICS[at % TOPICS.length]!;
    files[`tools/${nameOf(at)}/TOOL.hdlp`] = makeToolYaml(nameOf(at), { intent: `manage the ${topic} of team ${at}`, examples: `["${example(at)}", "open the ${topic} list"]`, aliases: `["${topic} helper ${at}"]` });
  }
  return files;
};
const INTENTS = ['check the weather list', 'open the payroll', 'deploy helper', 'manage the ticket of team 7', 'something else entirely'];

/** Everything an answer shows, the calibration included. */
function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) }));
}

/** The same index with its tools in a plain list (a fresh start that reads them all). */
function builtWhole(index: ToolIndex): ToolIndex {
  return { ...Object.fromEntries(Object.entries(Object.getOwnPropertyDescriptors(index)).filter(([key]) => key !== 'tools').map(([key, descriptor]) => [key, descriptor.value])), tools: [...eachTool(index)] } as ToolIndex;
}

async function keptMeasured(dir: string): Promise<unknown> {
  const [name] = await readdir(dir);
  const bytes = await readFile(join(dir, name!));
  const decoding = decodeSearchIndexFile(bytes.length);
  for (let step = decoding.next(0); ; ) {
    if (step.done) return step.value?.measured;
    const piece = bytes.subarray(step.value.position, step.value.position + step.value.into.length);
    step.value.into.set(piece);
    step = decoding.next(piece.length);
  }
}

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-search-measured-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

describe('a search index kept on disk', () => {
  describe('when a server restarts over the same scan', () => {
    it('prepares matching without making a definition, and answers as a fresh start, the calibration included', async () => {
      const { repo, cacheDir, warm } = await warmScanner(temp.path, toolFiles(60, (at) => `show the ${TOPICS[(at + 3) % TOPICS.length]} for ${at}`));
      const searchDir = join(temp.path, 'search');
      // the first start builds, calibrates and keeps them (and warms the process up, which reads tools)
      const first = await createMatcher(warm, { searchFiles: searchIndexFiles(searchDir) }).prepareLettingGo();
      const measured = await keptMeasured(searchDir);
      // and what the calibration read of each tool: two examples and an alias, none Chinese
      const basis = { texts: new Uint32Array(60).fill(3), chinese: new Uint8Array(60) };
      expect(measured).toEqual({ chineseProbes: false, calibration: { parameters: JSON.stringify([FITTED_RANKING, FITTED_DECISION]), value: first.explainIntent('open the payroll').calibration }, basis });
      expect(first.explainIntent('open the payroll').calibration.probes).toBeGreaterThan(0);

      const restarted = await new Scanner({ repo, cacheDir }).scan();
      const counted = countingEntriesParsed();
      const matcher = await createMatcher(restarted, { searchFiles: searchIndexFiles(searchDir) }).prepareLettingGo();
      // on main: every one of the 60, for the Chinese check and the calibration's count
      expect(counted.parsed()).toBe(0);
      vi.restoreAllMocks();
      expect(answers(matcher)).toEqual(answers(createMatcher(builtWhole(restarted)).prepare()));
    });

    it('prepares with ready() (the CLI) without making a definition either', async () => {
      const { repo, cacheDir, warm } = await warmScanner(temp.path, toolFiles(40, (at) => `print the ${TOPICS[(at + 1) % TOPICS.length]} of ${at}`));
      const searchDir = join(temp.path, 'search');
      await createMatcher(warm, { searchFiles: searchIndexFiles(searchDir) }).ready();
      const restarted = await new Scanner({ repo, cacheDir }).scan();
      const counted = countingEntriesParsed();
      const matcher = await createMatcher(restarted, { searchFiles: searchIndexFiles(searchDir) }).ready('open the payroll');
      expect(counted.parsed()).toBe(0);
      vi.restoreAllMocks();
      expect(answers(matcher)).toEqual(answers(createMatcher(builtWhole(restarted)).prepare()));
    });
  });

  it('keeps a calibration for the parameters it was measured with only: a matcher of others measures its own', async () => {
    const { warm } = await warmScanner(temp.path, toolFiles(40, (at) => `print the ${TOPICS[(at + 1) % TOPICS.length]} of ${at}`));
    const searchDir = join(temp.path, 'search');
    createMatcher(warm, { searchFiles: searchIndexFiles(searchDir) }).prepare();
    const decision = { ...FITTED_DECISION, threshold: 0.9 };
    const restored = createMatcher(builtWhole(warm), { searchFiles: searchIndexFiles(searchDir), decision }).prepare();
    expect(answers(restored)).toEqual(answers(createMatcher(builtWhole(warm), { decision }).prepare()));
  });

  it('says the tools have Chinese probes when an example has a Chinese word', async () => {
    const { warm } = await warmScanner(temp.path, toolFiles(12, (at) => (at === 11 ? '查看天气' : `print the weather of ${at}`)));
    const searchDir = join(temp.path, 'search');
    await createMatcher(warm, { searchFiles: searchIndexFiles(searchDir) }).ready();
    expect(await keptMeasured(searchDir)).toMatchObject({ chineseProbes: true });
  });
});
