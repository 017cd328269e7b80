import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

let temp: { path: string; cleanup: () => Promise<void> };

function spec(sandbox: Sandbox, file: string, args: string[], overrides: Partial<ProcessSpec> = {}): ProcessSpec {
  return { file, args, cwd: temp.path, env: minimalEnvironment({ HLDP_MARK: 'x' }), timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace: temp.path }, ...overrides };
}

/** This process's children that are launchers (their command line waits for a script), waiting or running a run. */
async function waitingLaunchers(): Promise<number[]> {
  return (await launchers()).map((launcher) => launcher.pid);
}

async function launchers(): Promise<Array<{ pid: number; commandLine: string }>> {
  const found: Array<{ pid: number; commandLine: string }> = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent !== process.pid) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (commandLine.includes('IFS= read -r go')) found.push({ pid: Number(entry), commandLine });
  }
  return found;
}

async function isDead(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat === '' || stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

// the same suite for the two kinds of launcher: bubblewrap's, and the PID namespace's of `sandbox: off`
for (const mode of ['auto', 'off'] as const) {
  describeWithBubblewrap(`a run started from a launcher that waited for it (sandbox: ${mode})`, () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      temp = await makeTempDir();
      sandbox = await createSandbox({ mode });
    });
    afterAll(async () => {
      sandbox?.close();
      await temp?.cleanup();
    });

    it('gives the program exactly the run’s environment and arguments, whatever they hold', async () => {
      // quotes, a newline, command substitutions and globs reach the program as bytes, never through a shell parser
      const hostile = `a'b"c $(touch pwned) \`touch pwned2\` *\n; exit 3 '\\''`;
      for (let run = 0; run < 4; run += 1) {
        const printed = await runProcess(spec(sandbox, 'printf', ['%s|', hostile, `run ${run}`]));
        expect(printed).toMatchObject({ ok: true, output: `${hostile}|run ${run}|` });
        const env = await runProcess(spec(sandbox, 'env', [], { env: { PATH: '/usr/bin:/bin', ONE: `it's ${run}` } }));
        // no PWD or OLDPWD of the launcher's shell, nothing of the gateway's, TMPDIR only where the sandbox sets it
        // a root gateway's run (as nobody, sandbox.run_as) is also told git's safe.directory, as command-line configuration
        const git = process.getuid?.() === 0 ? ['GIT_CONFIG_COUNT=1', 'GIT_CONFIG_KEY_0=safe.directory', 'GIT_CONFIG_VALUE_0=*'] : [];
        const expected = [...git, `ONE=it's ${run}`, 'PATH=/usr/bin:/bin', ...(mode === 'auto' ? ['TMPDIR=/tmp'] : [])];
        expect(env).toMatchObject({ ok: true });
        expect(env.output.trimEnd().split('\n').sort()).toEqual(expected);
      }
      expect(await readdir(temp.path)).not.toContain('pwned');
    });

    it('passes any arguments and environment values to the program byte for byte (property: quotes, `$()`, newlines, any Unicode)', async () => {
      // the run's argv and environment travel as a shell script the launcher sources: every value must stay one word
      const nasty = fc.constantFrom("'", '"', '\\', '$', '`', '\n', ';', '*', ' ', '%', '$(', "'\\''", '\r', '~', '!', '{', '}');
      const value = fc.string({ unit: fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 24 });
      await fc.assert(
        fc.asyncProperty(fc.array(value, { maxLength: 5 }), value, async (args, envValue) => {
          const printed = await runProcess(spec(sandbox, 'printf', ['<%s>', ...args]));
          expect(printed).toMatchObject({ ok: true, output: args.length === 0 ? '<>' : args.map((arg) => `<${arg}>`).join('') });
          const env = await runProcess(spec(sandbox, 'printenv', ['HLDP_VALUE'], { env: { PATH: '/usr/bin:/bin', HLDP_VALUE: envValue } }));
          expect(env).toMatchObject({ ok: true, output: `${envValue}\n` });
        }),
        { numRuns: runs(30) },
      );
      expect(await readdir(temp.path)).toEqual([]);
    }, propertyTimeout(120_000));

    it('keeps launchers waiting once a command line ran twice, and stops them when the sandbox closes', async () => {
      const own = await createSandbox({ mode });
      for (let run = 0; run < 2; run += 1) expect(await runProcess(spec(own, 'true', []))).toMatchObject({ ok: true });
      const before = await waitingLaunchers();
      await until(async () => (await waitingLaunchers()).length > before.length);
      own.close();
      await until(async () => (await waitingLaunchers()).every((pid) => before.includes(pid)));
    });

    it('returns a complete receipt when the waiting launchers were killed, and starts new ones', async () => {
      for (let run = 0; run < 2; run += 1) expect(await runProcess(spec(sandbox, 'true', []))).toMatchObject({ ok: true });
      await until(async () => (await waitingLaunchers()).length > 0);
      const killed = await waitingLaunchers();
      for (const pid of killed) process.kill(pid, 'SIGKILL');
      // a SIGKILL takes effect when the process next runs: the next run comes once they are dead (zombies or reaped)
      await until(async () => (await Promise.all(killed.map(isDead))).every(Boolean));
      const result = await runProcess(spec(sandbox, 'sh', ['-c', 'echo after; echo err >&2; exit 4']));
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 4, output: 'after\n', stderr: 'err\n' });
      await until(async () => (await waitingLaunchers()).length > 0);
      expect(await runProcess(spec(sandbox, 'echo', ['again']))).toMatchObject({ ok: true, output: 'again\n' });
    });

    it('runs a call that comes right after the waiting launchers were killed, in a launcher of its own', async () => {
      // a SIGKILL takes effect when the process next runs: at once, the killed launchers still show in /proc as
      // sleeping, the signal pending; one of them handed the run ended it "killed by SIGKILL" before it started
      for (let round = 0; round < 5; round += 1) {
        for (let run = 0; run < 2; run += 1) expect(await runProcess(spec(sandbox, 'true', []))).toMatchObject({ ok: true });
        await until(async () => (await waitingLaunchers()).length > 0);
        for (const pid of await waitingLaunchers()) process.kill(pid, 'SIGKILL');
        expect(await runProcess(spec(sandbox, 'echo', [`round ${round}`]))).toMatchObject({ ok: true, output: `round ${round}\n` });
      }
    });

    it('returns a complete receipt when its launcher is killed during the run', async () => {
      for (let run = 0; run < 2; run += 1) expect(await runProcess(spec(sandbox, 'true', []))).toMatchObject({ ok: true });
      await until(async () => (await waitingLaunchers()).length > 0);
      const started = join(temp.path, 'started');
      // printed before the file appears: the kill may come as soon as it exists
      const running = runProcess(spec(sandbox, 'sh', ['-c', `echo started; touch ${started}; sleep 30`]));
      await until(async () => (await readdir(temp.path)).includes('started'));
      // the running one among them, and those waiting, which are merely replaced
      for (const pid of await waitingLaunchers()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      const result = await running;
      expect(result).toMatchObject({ ok: false, output: 'started\n' });
      expect(result.code).toMatch(/KILLED_BY_SIGNAL|SANDBOX_FAILED|NONZERO_EXIT/);
      expect(await runProcess(spec(sandbox, 'echo', ['next']))).toMatchObject({ ok: true, output: 'next\n' });
    });

    it('leaves no script file behind once its runs are over', async () => {
      for (let run = 0; run < 3; run += 1) expect(await runProcess(spec(sandbox, 'echo', ['secret-param']))).toMatchObject({ ok: true });
      await until(async () => (await launchers()).length > 0);
      const all = await launchers();
      expect(all.length).toBeGreaterThan(0);
      // a script has no name on the host once its launcher has started: it is read from a descriptor
      const folders = (await readdir(tmpdir())).filter((name) => name.startsWith(`hldp-launch-${process.pid}-`));
      expect(folders).toHaveLength(1);
      expect(await readdir(join(tmpdir(), folders[0]!))).toEqual([]);
    });
  });
}

describeWithBubblewrap('the processes limit of a run from a waiting launcher', () => {
  it('is the run’s own, set when the launcher is taken', async () => {
    temp = await makeTempDir();
    const sandbox = await createSandbox({ mode: 'auto' });
    try {
      // the launchers wait under the default limit of 256 processes; the next run declares 8
      for (let run = 0; run < 2; run += 1) expect(await runProcess(spec(sandbox, 'true', []))).toMatchObject({ ok: true });
      await until(async () => (await waitingLaunchers()).length > 0);
      const bomb = 'for i in $(seq 40); do sleep 5 & done; wait';
      const result = await runProcess(spec(sandbox, 'sh', ['-c', bomb], { isolation: { sandbox, workspace: temp.path, declared: { limits: { processes: 8 } } } }));
      expect(result).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'processes' });
    } finally {
      sandbox.close();
      await temp.cleanup();
    }
  });
});
