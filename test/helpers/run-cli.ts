import { execFile, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The real `hldp` entry point (compiled by `npm run build`, which `npm test` runs first; test/global-setup.ts checks it is current). */
export const HLDP_BIN = fileURLToPath(new URL('../../bin/hldp.js', import.meta.url));

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** the child's process id (gone by the time the run resolves) */
  pid?: number;
}

// under the test timeout (60 s): a run that hangs is killed here, never left behind listening
const DEFAULT_TIMEOUT_MS = 55_000;

const running = new Set<ChildProcess>();
// a test file that ends (or is killed by its timeout) takes its children with it
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Remembers a child until it exits, so that nothing a test started outlives the test process. */
export function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Runs `hldp` as a real process, as a user would; killed (SIGKILL) after `timeoutMs`. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [HLDP_BIN, ...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const killed = error !== null && (error as { killed?: boolean }).killed === true;
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: killed ? `${stderr}\n[runCli: killed after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms]` : stderr, ...(child.pid ? { pid: child.pid } : {}) });
      },
    );
    track(child);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
