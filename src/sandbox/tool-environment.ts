import { hostProgram } from './bubblewrap.js';

/**
 * The command that runs `argv` with exactly `env` and nothing else (coreutils' `env -i`), in `cwd` where given. It
 * comes last, after every program that sets the run up (sh, bwrap, unshare, setpriv, prlimit), which therefore run
 * with a fixed, empty environment: a tool's `shell.env` (LD_PRELOAD, GCONV_PATH…) was loaded by the host's sh and
 * bwrap, and by setpriv before it dropped root, so a tool ran its own code as root on the host (review O, O1 and O2).
 */
export function withEnvironment(env: Record<string, string>, argv: readonly string[], cwd?: string): string[] {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return [hostProgram('env'), '-i', ...(cwd === undefined ? [] : ['-C', cwd]), '--', ...assignments, ...argv];
}

/**
 * Why `withEnvironment` cannot run this program, or undefined: `env` reads every word holding `=` before the program
 * as an assignment, so a program named so would be taken for one.
 */
export function environmentProblem(file: string): string | undefined {
  return file.includes('=') ? `the program '${file}' has '=' in its name, which the sandbox cannot start (it would read it as a variable); rename it, or run it through sh -c` : undefined;
}
