import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// Review userZ7, F10: grep, diff, test and cmp exit 1 as an answer ("no match", "they differ"); a shell tool had no way to
// say so, and grep-code's "no match" was a failed call (NONZERO_EXIT) that hldp suggest did not count. A tool now
// declares `shell.ok_exit_codes: [1]`: such a call is ok, and its receipt keeps the exit code as the process gave it.

const grepTool = (name: string, extra: Record<string, string> = {}): string =>
  makeToolYaml(name, { executor: 'shell', method: 'run', params_schema: '{ pattern: { type: string, required: true } }', shell: '{ argv: [grep, -rn, --, "{pattern}", "."], ok_exit_codes: [1] }', ...extra });

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  temp = await makeTempDir('hldp-f10-');
  repo = join(temp.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/grep-code/TOOL.hdlp': grepTool('grep-code'),
    // the same without ok_exit_codes, as every tool was
    'tools/grep-plain/TOOL.hdlp': grepTool('grep-plain', { shell: '{ argv: [grep, -rn, --, "{pattern}", "."] }' }),
    // grep's 2 (a file it cannot read) is not declared: still a failure
    'tools/grep-missing/TOOL.hdlp': grepTool('grep-missing', { shell: '{ argv: [grep, -n, --, "{pattern}", no-such-file.txt], ok_exit_codes: [1] }' }),
  });
  const workspace = join(temp.path, 'workspace');
  await mkdir(workspace, { recursive: true });
  await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
  env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace };
}, 60_000);
afterAll(() => temp?.cleanup());

const call = async (tool: string, pattern: string): Promise<{ code: number; receipt: Record<string, unknown>; stderr: string }> => {
  const run = await runCli(['call', tool, '--repo', repo, '--params', JSON.stringify({ pattern }), '--json'], { cwd: temp.path, env });
  return { code: run.code, receipt: JSON.parse(run.stdout) as Record<string, unknown>, stderr: run.stderr };
};

describe('a shell tool declaring shell.ok_exit_codes: [1], with hldp call', () => {
  it("answers grep's no match as ok: true, exit 0, the receipt keeping exit_code 1", { timeout: 60_000 }, async () => {
    const none = await call('grep-code', 'gamma');
    expect(none.code, none.stderr).toBe(0);
    expect(none.receipt).toMatchObject({ ok: true, code: null, error: null, exit_code: 1, output: '' });
  });

  it('answers a match as before', { timeout: 60_000 }, async () => {
    const found = await call('grep-code', 'beta');
    expect(found.code, found.stderr).toBe(0);
    expect(found.receipt).toMatchObject({ ok: true, exit_code: 0, output: './notes.txt:2:beta\n' });
  });

  it('still fails an exit code it does not declare (grep 2: no such file), with its stderr', { timeout: 60_000 }, async () => {
    const missing = await call('grep-missing', 'beta');
    expect(missing.code).toBe(1);
    expect(missing.receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 2 });
    expect(String(missing.receipt.error)).toContain('no-such-file.txt');
  });

  it('without the field, exit 1 is NONZERO_EXIT as before', { timeout: 60_000 }, async () => {
    const plain = await call('grep-plain', 'gamma');
    expect(plain.code).toBe(1);
    expect(plain.receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 1 });
  });
});

describe('hldp validate of shell.ok_exit_codes', () => {
  it.each([
    ['a code over 255', '[1, 256]', /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes\.1' must be <= 255/],
    ['a negative code', '[-1]', /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes\.0' must be >= 0/],
    ['a code that is not a whole number', '[1.5]', /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes\.0' must be integer/],
    ['a code given twice', '[1, 1]', /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes' .*duplicate/],
    ['a single number, not a list', '1', /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes' must be array/],
    ['more than 16 codes', `[${Array.from({ length: 17 }, (_, index) => index + 1).join(', ')}]`, /TOOL\.hdlp:12:\d+: error: 'shell\.ok_exit_codes' must NOT have more than 16 items/],
  ])('refuses %s at its file:line:col', { timeout: 60_000 }, async (_case, codes, message) => {
    const folder = await makeTempDir('hldp-f10-validate-');
    try {
      await mkdir(join(folder.path, 'tools', 'grep-code'), { recursive: true });
      await writeFile(join(folder.path, 'tools', 'grep-code', 'TOOL.hdlp'), grepTool('grep-code', { shell: `\n  argv: [grep, -rn, --, "{pattern}", "."]\n  ok_exit_codes: ${codes}` }));
      const run = await runCli(['validate', folder.path]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout + run.stderr).toMatch(message);
    } finally {
      await folder.cleanup();
    }
  });

  it('passes [1] and [1, 2]', { timeout: 60_000 }, async () => {
    const folder = await makeTempDir('hldp-f10-validate-');
    try {
      await mkdir(join(folder.path, 'tools', 'grep-code'), { recursive: true });
      await writeFile(join(folder.path, 'tools', 'grep-code', 'TOOL.hdlp'), grepTool('grep-code', { shell: '{ argv: [grep, -rn, --, "{pattern}", "."], ok_exit_codes: [1, 2] }' }));
      const run = await runCli(['validate', folder.path]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    } finally {
      await folder.cleanup();
    }
  });
});
