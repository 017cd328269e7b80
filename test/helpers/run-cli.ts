import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The real `hldp` entry point (compiled by `npm run build`, which `npm test` runs first). */
export const HLDP_BIN = fileURLToPath(new URL('../../bin/hldp.js', import.meta.url));

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `hldp` as a real process, as a user would. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [HLDP_BIN, ...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
