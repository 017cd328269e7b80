import { tmpdir } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { processesMatching, uniqueSleep } from './support/processes.js';

function sh(script: string, overrides: Partial<ProcessSpec> = {}): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: tmpdir(), env: minimalEnvironment(), timeoutMs: 10_000, maxOutputBytes: 65_536, ...overrides };
}

describe('runProcess', () => {
  describe('when the process succeeds', () => {
    it('returns its raw stdout and every field of the result', async () => {
      const result = await runProcess(sh('echo hello'));
      expect(result).toEqual({
        ok: true,
        output: 'hello\n',
        error: null,
        stderr: '',
        code: null,
        exit_code: 0,
        signal: null,
        timed_out: false,
        output_bytes: 6,
        cut_bytes: 0,
        duration_ms: expect.any(Number),
      });
    });

    it('returns stdout and stderr separately, stderr kept even on success', async () => {
      const result = await runProcess(sh('printf out; printf err >&2'));
      expect(result).toMatchObject({ ok: true, output: 'out', stderr: 'err', error: null, output_bytes: 6 });
    });

    it('returns at once for a reader of stdin, because stdin is closed', async () => {
      const result = await runProcess(sh('cat; echo done'));
      expect(result).toMatchObject({ ok: true, output: 'done\n' });
    });
  });

  describe('when the process fails', () => {
    it('returns its whole stderr as the error, untouched', async () => {
      const stderr = Array.from({ length: 200 }, (_, index) => `problem ${index}`).join('\n') + '\n';
      // the text reaches the script as $0, so no shell parses it
      const result = await runProcess({ ...sh(''), args: ['-c', `printf '%s' "$0" >&2; exit 7`, stderr] });
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 7, signal: null, error: stderr, stderr, timed_out: false });
    });

    it('returns a message naming the exit code when stderr is empty', async () => {
      const result = await runProcess(sh('exit 3'));
      expect(result).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 3, error: 'exited with code 3 and wrote nothing to stderr' });
    });

    it('returns KILLED_BY_SIGNAL and the signal when it is killed', async () => {
      const result = await runProcess(sh('kill -KILL $$'));
      expect(result).toMatchObject({ ok: false, code: 'KILLED_BY_SIGNAL', exit_code: null, signal: 'SIGKILL', error: 'killed by SIGKILL' });
    });

    it('returns SPAWN_FAILED when the program does not exist', async () => {
      const result = await runProcess({ ...sh(''), file: 'no-such-program-hldp' });
      expect(result).toMatchObject({ ok: false, code: 'SPAWN_FAILED', exit_code: null, output: '' });
      expect(result.error).toContain('ENOENT');
    });
  });

  describe('when the deadline passes', () => {
    it('returns TIMEOUT and leaves no grandchild behind, even one that ignores SIGTERM', async () => {
      const sleep = uniqueSleep();
      const result = await runProcess(sh(`trap "" TERM; ${sleep.command} & echo started; wait`, { timeoutMs: 300 }));
      expect(result).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, signal: 'SIGKILL', output: 'started\n' });
      expect(result.error).toContain('timed out after 300 ms');
      await vi.waitFor(() => expect(processesMatching(sleep.marker)).toEqual([]), { timeout: 2_000 });
    });

    it('returns the output printed before the deadline', async () => {
      const result = await runProcess(sh('echo started; sleep 60', { timeoutMs: 300 }));
      expect(result).toMatchObject({ code: 'TIMEOUT', output: 'started\n', signal: 'SIGTERM' });
    });
  });

  describe('when the process leaves a background child running', () => {
    it('returns when the process exits, and the child is killed with its group', async () => {
      const sleep = uniqueSleep();
      const result = await runProcess(sh(`${sleep.command} & echo started`));
      expect(result).toMatchObject({ ok: true, exit_code: 0, timed_out: false });
      await vi.waitFor(() => expect(processesMatching(sleep.marker)).toEqual([]), { timeout: 2_000 });
    });
  });

  // issue #10 item 3: a child that leaves the process group and session must not outlive its call either
  describe.each([
    ['setsid', (command: string) => `setsid ${command} >/dev/null 2>&1 &`],
    ['a double fork', (command: string) => `( ( ${command} >/dev/null 2>&1 & ) & );`],
    ['setsid after a double fork, holding the pipes', (command: string) => `( ( setsid ${command} & ) & );`],
  ])('when the process leaves a daemon behind through %s', (_how, daemonize) => {
    it('returns when the process exits, with the daemon already gone', async () => {
      const sleep = uniqueSleep();
      const result = await runProcess(sh(`${daemonize(sleep.command)} sleep 0.3; echo done`));
      expect(result).toMatchObject({ ok: true, output: 'done\n', exit_code: 0 });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });

    it('returns TIMEOUT, with the daemon already gone', async () => {
      const sleep = uniqueSleep();
      const result = await runProcess(sh(`${daemonize(sleep.command)} sleep 60`, { timeoutMs: 500 }));
      expect(result).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });
  });

  describe('when the caller cancels', () => {
    it('returns CANCELLED and kills the process', async () => {
      const controller = new AbortController();
      const sleep = uniqueSleep();
      const running = runProcess(sh(`${sleep.command}`, { signal: controller.signal }));
      await vi.waitFor(() => expect(processesMatching(sleep.marker)).not.toEqual([]), { timeout: 5_000 });
      controller.abort();
      const result = await running;
      expect(result).toMatchObject({ ok: false, code: 'CANCELLED', timed_out: false });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });

    it('returns only once the killed process is gone, even when it ignored SIGTERM and the grace is tiny', async () => {
      // regression: the pipes were let go of 2 grace periods after the stop, so on a loaded host the receipt said
      // "killed" while the SIGKILLed process still ran
      for (let round = 0; round < 5; round += 1) {
        const controller = new AbortController();
        const sleep = uniqueSleep();
        const running = runProcess(sh(`trap '' TERM; ${sleep.command} & wait`, { signal: controller.signal, killGraceMs: 1 }));
        await vi.waitFor(() => expect(processesMatching(sleep.marker)).not.toEqual([]), { timeout: 5_000 });
        controller.abort();
        const result = await running;
        expect(result).toMatchObject({ ok: false, code: 'CANCELLED' });
        expect(processesMatching(sleep.marker)).toEqual([]);
      }
    });
  });

  describe('when the process prints far more than the cap', () => {
    // a GiB through two pipes is ~5 s of CPU, most of it the kernel's copies (head | tr | this process): 29 s alone at
    // load 27, and past the 60 s it had at load ~15 beside the other suites. The deadline and the test's timeout leave
    // room for legitimately slow work; what the test holds is the cap and the memory, not the speed
    it('returns head and tail within the cap, counts every byte, and keeps memory bounded', { timeout: 240_000 }, async () => {
      const before = process.memoryUsage().rss;
      const result = await runProcess(sh('head -c 1073741824 /dev/zero | tr "\\0" x', { maxOutputBytes: 4096, timeoutMs: 200_000 }));
      const grown = process.memoryUsage().rss - before;
      expect(result).toMatchObject({ ok: true, output_bytes: 1_073_741_824 });
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(4096);
      expect(result.cut_bytes).toBe(1_073_741_824 - (result.output.match(/x/g) ?? []).length);
      expect(result.output).toContain(`[… ${result.cut_bytes} bytes cut of 1073741824 …]`);
      // a buffer that grew with the output would need a whole GiB
      expect(grown).toBeLessThan(256 * 1024 * 1024);
    });

    it('returns stderr bounded by the same cap, counted in cut_bytes', async () => {
      const result = await runProcess(sh('seq 1 100000 >&2; exit 1', { maxOutputBytes: 256 }));
      expect(result.code).toBe('NONZERO_EXIT');
      expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(256);
      expect(result.stderr.startsWith('1\n2\n3\n')).toBe(true);
      expect(result.stderr.endsWith('99999\n100000\n')).toBe(true);
      expect(result.cut_bytes).toBeGreaterThan(500_000);
    });
  });
});
