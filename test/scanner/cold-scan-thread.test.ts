import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// issue #18: a cold scan of POOL_THRESHOLD (20,000) files or more parses in one thread beside the reading, each entry's
// summary and cache line made there. `HLDP_SCAN_THREAD_FROM` lowers the threshold, so that a small repository takes that
// path: `hldp scan` must then print, and write to its cache, exactly what the main thread's parse gives, broken
// definitions reported at the same file and line, and a thread that dies must lose nothing (its files parsed again).

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

// enough tools for several batches of the thread's (64 files each)
const TOOLS = 300;

async function repository(): Promise<string> {
  const repo = await initRepository(join(temp.path, 'repo'));
  const files: Record<string, string> = {
    'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { display: '"工具 🚀 alpha — ёлка"', aliases: '[first, shared]' }),
    'tools/beta/TOOL.hdlp': makeToolYaml('beta', { aliases: '[alpha, shared, second]', group: 'letters' }),
    'tools/Alpha/TOOL.hdlp': makeToolYaml('Alpha'),
    'tools/late/TOOL.hdlp': makeToolYaml('late', { created: 'someday' }),
    'tools/send-email/TOOL.hdlp': 'name: send-email\nintent: [mail a message to someone\n',
    'tools/nowhere/TOOL.hdlp': makeToolYaml('nowhere', { executor: 'nowhere' }),
    'tools/misnamed/TOOL.hdlp': makeToolYaml('other-name'),
    'toolsets/letters/TOOLSET.hdlp': 'name: letters\ndescription: the letters\ntools: [alpha, letters, missing]\nauthor: a\nwhy: w\n',
    'skills/care/SKILL.md': '---\nname: care\ndescription: how to care — 小心\ntoolset: letters\n---\n# care\n',
  };
  for (let i = 0; i < TOOLS; i++) files[`tools/tool-${String(i).padStart(3, '0')}/TOOL.hdlp`] = makeToolYaml(`tool-${String(i).padStart(3, '0')}`, i % 37 === 5 ? { params_schema: '{type: object, properties: {when: {type: strin}}}' } : {});
  await commitFiles(repo, files);
  return repo;
}

// a preload that counts the parser threads the CLI starts (said on stderr at exit) and, with KILL_FIRST_THREAD set,
// ends the first one as soon as it has sent its first batch back
const HOOK = `import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  let started = 0;
  process.on('worker', (worker) => {
    if (++started === 1 && process.env.KILL_FIRST_THREAD === '1') worker.once('message', () => void worker.terminate());
  });
  process.on('exit', () => process.stderr.write('\\nthreads-started=' + started + '\\n'));
}
`;

interface Scanned {
  json: { scanned_at: string; errors: Array<{ file: string; line: number; column: number; code: string }> } & Record<string, unknown>;
  threads: number;
  cache: Record<string, string>;
}

async function scan(repo: string, name: string, env: Record<string, string>): Promise<Scanned> {
  const hook = join(temp.path, 'hook.mjs');
  await writeFile(hook, HOOK);
  const cacheDir = join(temp.path, `cache-${name}`);
  const run = await runCli(['scan', '--repo', repo, '--json'], { env: { HLDP_CACHE_DIR: cacheDir, NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`, ...env }, timeoutMs: 110_000 });
  expect(run.stderr).not.toMatch(/hldp:|index cache not written/);
  const json = JSON.parse(run.stdout) as Scanned['json'];
  const threads = Number(/threads-started=(\d+)/.exec(run.stderr)?.[1]);
  // the cache's files, each with its scan's time taken out
  const cache: Record<string, string> = {};
  const files = await readdir(cacheDir, { recursive: true, withFileTypes: true });
  for (const file of files.filter((entry) => entry.isFile())) {
    const path = join(file.parentPath ?? file.path, file.name);
    cache[relative(cacheDir, path)] = (await readFile(path, 'latin1')).split(json.scanned_at).join('<scanned_at>');
  }
  return { json, threads, cache };
}

describe('a cold scan that parses in a thread beside the reading', () => {
  it('prints and caches exactly what the main thread\'s parse gives, broken definitions at the same file and line, even when its thread dies', async () => {
    const repo = await repository();
    const here = await scan(repo, 'here', {});
    const beside = await scan(repo, 'beside', { HLDP_SCAN_THREAD_FROM: '1' });
    const killed = await scan(repo, 'killed', { HLDP_SCAN_THREAD_FROM: '1', KILL_FIRST_THREAD: '1' });

    expect(here.threads).toBe(0);
    expect(beside.threads).toBe(1);
    // the first thread died after one batch: its other files were parsed again, and a new thread took the rest
    expect(killed.threads).toBe(2);

    // the generated tools but the 8 with a broken schema, and Alpha and beta (alpha a case twin, the rest broken)
    expect(here.json.tools as unknown[]).toHaveLength(TOOLS - 8 + 2);
    expect(here.json.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ file: 'tools/late/TOOL.hdlp', line: 8, column: 10, code: 'SCHEMA_VIOLATION' }),
      expect.objectContaining({ file: 'tools/send-email/TOOL.hdlp', line: 3, column: 1, code: 'YAML_SYNTAX' }),
      expect.objectContaining({ file: 'tools/nowhere/TOOL.hdlp', line: 5, column: 11, code: 'SCHEMA_VIOLATION' }),
      expect.objectContaining({ file: 'tools/misnamed/TOOL.hdlp', line: 1, column: 7, code: 'NAME_MISMATCH' }),
      expect.objectContaining({ file: 'tools/tool-005/TOOL.hdlp', line: 6, column: 57, code: 'INVALID_PARAMS_SCHEMA' }),
      expect.objectContaining({ file: 'tools/alpha/TOOL.hdlp', line: 1, column: 7, code: 'DUPLICATE_NAME' }),
    ]));
    for (const other of [beside, killed]) {
      expect({ ...other.json, scanned_at: '' }).toEqual({ ...here.json, scanned_at: '' });
      expect(Object.keys(other.cache)).toEqual(Object.keys(here.cache));
      expect(Object.keys(here.cache).length).toBeGreaterThan(0);
      for (const [path, text] of Object.entries(here.cache)) expect(other.cache[path], path).toBe(text);
    }
  }, 360_000);
});
