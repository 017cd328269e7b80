import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';

// The benchmarks' entries as a user starts them from a clone (review userZ3, Z3-5 and Z3-6)
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Done {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Done> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, env, timeout: 120_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, signal: (error?.signal as NodeJS.Signals | undefined) ?? null, stdout, stderr }),
    );
    track(child);
  });
}

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-bench-entries-');
});
afterAll(() => temp.cleanup());

describe('a bench script started without the arguments it needs', () => {
  // serve-ready.ts said `Cannot find module '…/undefined'` with a stack trace; others threw their usage as an Error
  it.each([
    'bench/scan/serve-ready.ts',
    'bench/scan/generate-repository.ts',
    'bench/scan/warm-start.ts',
    'bench/scan/listen-cpu.ts',
    'bench/scan/catalog-memory.ts',
    'bench/scan/command-cost.ts',
    'bench/scan/kept-index-decode.ts',
    'bench/scan/request-cost.ts',
    'bench/scan/serve-git.ts',
    'bench/scan/start-modules.ts',
    'bench/scan/start-phases.ts',
    'bench/scan/stall-report.ts',
    'bench/match/same-answers.ts',
  ])('%s prints its usage and exits 2, without a stack trace', async (script) => {
    const done = await run(script, []);
    expect(done.code, done.stderr).toBe(2);
    expect(done.stderr).toContain(`usage: npx tsx ${script}`.replace('npx tsx bench/scan/warm-start.ts', 'node --expose-gc --import tsx bench/scan/warm-start.ts').replace('npx tsx bench/scan/catalog-memory.ts', 'node --expose-gc --import tsx bench/scan/catalog-memory.ts'));
    expect(done.stderr).not.toMatch(/\n\s+at |Error:/);
  }, 150_000);
});

describe('bench/scan/generate-repository.ts run directly (the 100,000-tool row\'s recipe)', () => {
  it('makes a git repository of SIZE generated tools in DIR', async () => {
    const dir = join(temp.path, 'generated');
    const done = await run('bench/scan/generate-repository.ts', [dir, '3']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('of 3 generated tools');
    const files = (await git(dir, 'ls-files')).trim().split('\n');
    expect(files).toEqual(['tools/tool-000000/TOOL.hdlp', 'tools/tool-000001/TOOL.hdlp', 'tools/tool-000002/TOOL.hdlp']);
    // a folder with something in it is refused, nothing written over
    const again = await run('bench/scan/generate-repository.ts', [dir, '5']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');
    expect((await git(dir, 'ls-files')).trim().split('\n')).toHaveLength(3);
  }, 300_000);
});

describe('a benchmark interrupted with Ctrl-C', () => {
  // its generated repository (85-88 MB at 10,000 tools) was left in the temporary folder: only `finally` removed it
  it('removes its work folder and ends by the signal', async () => {
    // its folder is the one of that prefix that was not there before (a TMPDIR of its own would cost tsx's cache)
    const prefix = 'hldp-bench-folder-rescan-';
    const ours = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith(prefix) && !before.has(name));
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(prefix)));
    // its own process group, as a terminal's foreground job: Ctrl-C reaches the benchmark and the git it forked
    const child = track(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/scan/folder-rescan.ts'), '--tools', '10000', '--runs', '1'], { cwd: ROOT, detached: true, stdio: ['ignore', 'ignore', 'pipe'] }));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    let ended = false;
    void exited.then(() => (ended = true));
    try {
      // wait (no fixed sleep) until its work folder exists
      const deadline = Date.now() + 200_000;
      while (!ended && ours().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const made = ours();
      expect(made, stderr).toHaveLength(1);
      const folder = join(tmpdir(), made[0]!);
      process.kill(-child.pid!, 'SIGINT');
      const end = await exited;
      expect(end.signal === 'SIGINT' || end.code === 130, `${JSON.stringify(end)} ${stderr}`).toBe(true);
      expect(stderr).toContain(`SIGINT: removed the work folder ${folder}`);
      expect(existsSync(folder)).toBe(false);
    } finally {
      // a failed expectation must not leave the benchmark generating its repository
      if (!ended) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 300_000);
});
