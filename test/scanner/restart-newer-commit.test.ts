import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { findTool, toolsOf, type ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { comparableIndex, countingEntriesParsed, ENTRIES_PARSED_COUNTER } from '../helpers/warm-cache.js';

// Issue #18: a process that starts with a scan cache of commit A while the repository has moved on to B made every
// entry of A's cache (keyed them all to compare oids) and assembled the index again. It now compares A's and B's trees
// and patches A's cached index: only the entries changed are read and made, and the index is a fresh scan's of B.

const TOOLS = 300;
const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;

let temp: { path: string; cleanup: () => Promise<void> };
let served: { path: string; cleanup: () => Promise<void> };
let server: GitHttpServer;
beforeAll(async () => {
  served = await makeTempDir('hldp-restart-served-');
  server = await startGitHttpServer({ projectRoot: served.path });
});
afterAll(async () => {
  await server.close();
  await served.cleanup();
});
beforeEach(async () => {
  temp = await makeTempDir('hldp-restart-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

function startingFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'toolsets/ops/TOOLSET.hdlp': `name: ops\ndescription: operations\ntools: [${nameOf(1)}, ${nameOf(2)}]\nauthor: TEST-001\nwhy: tests\n`,
  };
  for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = makeToolYaml(nameOf(at), { intent: `handles job ${at}`, aliases: `[${nameOf(at)}-alias]` });
  return files;
}

// B, two commits after A: two tools added that claim one new alias, one removed, one edited, one broken. (An alias a
// newcomer takes from a served tool stays with the served one since twin14: a restart keeps what a fresh scan, which
// knows no history, gives to the first by path; rescan-any-change.test.ts holds that case.)
const MOVED_ON: Array<Record<string, string | null>> = [
  { 'tools/added-a/TOOL.hdlp': makeToolYaml('added-a', { aliases: '[shared-alias]' }), 'tools/added-b/TOOL.hdlp': makeToolYaml('added-b', { aliases: '[shared-alias]' }), [`tools/${nameOf(6)}/TOOL.hdlp`]: null },
  { [`tools/${nameOf(7)}/TOOL.hdlp`]: makeToolYaml(nameOf(7), { intent: 'changed while down' }), [`tools/${nameOf(8)}/TOOL.hdlp`]: `name: ${nameOf(8)}\nintent: [unclosed\n` },
];

function expectMovedOn(index: ToolIndex): void {
  // neither held it before: the first by path keeps the alias, the other has it cut
  expect(findTool(index, 'added-a')?.aliases).toEqual(['shared-alias']);
  expect(findTool(index, 'added-b')?.aliases).toEqual([]);
  expect(findTool(index, nameOf(5))?.aliases).toEqual([`${nameOf(5)}-alias`]);
  expect(findTool(index, nameOf(6))).toBeUndefined();
  expect(findTool(index, nameOf(7))?.intent).toBe('changed while down');
  expect(index.errors.some((error) => error.file === `tools/${nameOf(8)}/TOOL.hdlp`)).toBe(true);
  expect(index.warnings.some((warning) => warning.code === 'ALIAS_CONFLICT')).toBe(true);
}

describe('a Scanner started with a scan cache of an older commit', () => {
  describe.each([
    { kind: 'a local git repository', overHttp: false },
    { kind: 'a remote over smart HTTP', overHttp: true },
  ])('of $kind', ({ overHttp }) => {
    it('patches the cached index from the trees\' differences, parsing only the entries changed', async () => {
      const work = await initRepository(join(temp.path, 'work'));
      await commitFiles(work, startingFiles());
      let repo = work;
      if (overHttp) {
        const name = `${temp.path.split('/').pop()!}.git`;
        const bare = join(served.path, name);
        await git(temp.path, 'clone', '-q', '--bare', work, bare);
        await git(work, 'remote', 'add', 'origin', bare);
        repo = `${server.url}/${name}`;
      }
      const cacheDir = join(temp.path, 'cache');
      const first = new Scanner({ repo, cacheDir });
      await first.scan();
      await first.flush();
      // the repository moves on while no process runs
      for (const files of MOVED_ON) await commitFiles(work, files, 'while down');
      if (overHttp) await git(work, 'push', '-q', 'origin', 'main');

      const counted = countingEntriesParsed();
      const scanner = new Scanner({ repo, cacheDir });
      const restarted = await scanner.scan();
      await scanner.flush();
      const parsed = counted.parsed();
      vi.restoreAllMocks();
      // the changed entries' old lines, the toolset, and ~9 entries looked at per change: on 50f6cad all 301
      expect(parsed).toBeLessThan(60);
      expect(Array.isArray(toolsOf(restarted))).toBe(false);
      expectMovedOn(restarted);
      const fresh = await scanOnce(repo, { cacheDir: join(temp.path, 'fresh') });
      expect(restarted.commit).toBe(fresh.commit);
      expect(comparableIndex(restarted)).toEqual(comparableIndex(fresh));
      // the cache it wrote is B's scan, as the next start reads it
      expect(comparableIndex(await new Scanner({ repo, cacheDir }).scan())).toEqual(comparableIndex(fresh));
    });
  });
});


describe('hldp scan started over a repository that moved on while it was down', () => {
  it('prints a fresh scan\'s index of the new commit, having parsed only the entries changed', async () => {
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, startingFiles());
    const counter = join(temp.path, 'count-parsed.cjs');
    await writeFile(counter, ENTRIES_PARSED_COUNTER);
    const cacheDir = join(temp.path, 'cache');
    const run = async (args: string[], cache: string): Promise<{ stdout: string; stderr: string; parsed: number }> => {
      const parsedFile = join(temp.path, `parsed-${Math.random()}`);
      const result = await runCli(['scan', '--repo', repo, ...args], { env: { HLDP_CACHE_DIR: cache, NODE_OPTIONS: `--require ${counter}`, HLDP_TEST_PARSED_FILE: parsedFile } });
      expect(result.code, result.stderr).toBe(0);
      return { stdout: result.stdout, stderr: result.stderr, parsed: Number(await readFile(parsedFile, 'utf8')) };
    };
    await run([], cacheDir);
    for (const files of MOVED_ON) await commitFiles(repo, files, 'while down');

    const restarted = await run([], cacheDir);
    const fresh = await run([], join(temp.path, 'fresh'));
    expect(restarted.stdout).toBe(fresh.stdout);
    expect(restarted.stderr).toBe(fresh.stderr);
    expect(restarted.stderr).toContain(`tools/${nameOf(8)}/TOOL.hdlp`);
    // the 20 tools it prints, the changed entries and a few looked at: on 50f6cad every entry (301) and the 20
    expect(restarted.parsed).toBeLessThan(80);
    // what it cached is B's scan: read back whole, it is a fresh scan's
    expect((await run(['--json'], cacheDir)).stdout.replace(/"scanned_at": "[^"]+"/, '')).toBe((await run(['--json'], join(temp.path, 'fresh'))).stdout.replace(/"scanned_at": "[^"]+"/, ''));
  });
});
