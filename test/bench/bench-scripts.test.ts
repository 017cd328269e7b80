import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';

// the README's benchmark commands, run as a user runs them from a fresh clone (review userY, Y7 and Y9)
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(script: string, args: string[], timeout = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout, killSignal: 'SIGKILL' }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    track(child);
  });
}

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-bench-scripts-');
});
afterAll(() => temp.cleanup());

describe("bench/match's scripts without the team's BFCL file", () => {
  it.each(['bench/match/miss-causes.ts', 'bench/match/refusal-curve.ts'])('%s says where the data is expected and exits 2, without a stack trace', async (script) => {
    // a set of the repository's own kind whose tools come from a file that is not there, as the translated sets' do
    const file = join(temp.path, 'set.json');
    await writeFile(file, JSON.stringify({ tools_from: 'absent/bfcl_v4_toolsel.json', queries: [] }));
    const done = await run(script, ['--data', file]);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(`no benchmark data at ${join(temp.path, 'absent/bfcl_v4_toolsel.json')} (its tools_from, named by ${file})`);
    expect(done.stderr).toContain('-- --data FILE');
    expect(done.stderr).not.toMatch(/ENOENT|\n\s+at /);
  });
});

describe('npm run bench:sessions', () => {
  // it counted six meta-tools at the head of every catalog; approval_wait made them seven and every run died
  it('runs to its report on a small registry', async () => {
    const done = await run('bench/sessions/run.ts', ['--tools', '300', '--sessions', '30', '--rounds', '1', '--groups', '10'], 240_000);
    expect(done.stderr).not.toMatch(/disagrees/);
    expect(done.code, done.stderr).toBe(0);
    expect(() => JSON.parse(done.stdout)).not.toThrow();
  }, 300_000);
});
