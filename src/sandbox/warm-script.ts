import type { ResourceLimits } from '../core/index.js';
import { hostProgram } from './bubblewrap.js';
import { PRELUDE_FAILURE, shellWord, ulimits } from './resource-limits.js';
import { withEnvironment } from './tool-environment.js';

/** The descriptor a waiting launcher waits on: a line there says its script is written (the status descriptor is 3). */
export const CONTROL_FD = 4;

/**
 * The descriptor a launcher reads its script from: a file opened, then unlinked, by the gateway before the launcher
 * starts, so no run's script (its environment: API keys) has a name on the host, even after a SIGKILL of the gateway.
 */
export const SCRIPT_FD = 5;

/** `$0` of the shell that reads the script: each of its own errors starts with `hldp-sandbox: `. */
export const SCRIPT_SHELL_NAME = 'hldp-sandbox';

/**
 * What a waiting launcher runs: it waits for the line that says its script is written, then runs it from its
 * descriptor (`.` opens it afresh, from the start). (The script comes as a file: Node's pipes are sockets, which a shell cannot open by /dev/fd, and the shell's `read` takes one
 * byte per system call.) At end of file (the gateway let go of it) it exits.
 */
export function waitForScript(): string {
  return `IFS= read -r go <&${CONTROL_FD} || exit ${PRELUDE_FAILURE.status}\nexec ${CONTROL_FD}<&-\n. /dev/fd/${SCRIPT_FD}`;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether a shell can give the process exactly this environment (`export` takes identifiers only). */
export function exportable(env: Record<string, string>): boolean {
  return Object.keys(env).every((name) => IDENTIFIER.test(name));
}

/** One run of a waiting launcher: where, with what limits and environment, and what. */
export interface WarmRun {
  cwd: string;
  env: Record<string, string>;
  /** the limits to set; none where limits are off */
  limits?: ResourceLimits;
  /** set RLIMIT_NPROC too: no pids cgroup counts the processes */
  processes?: boolean;
  argv: readonly string[];
  /**
   * the command that becomes the user the tool runs as (setpriv's, a root gateway's `sandbox.run_as`), before the
   * program: this shell then runs as root, so it never holds the run's environment, which only the program gets
   * (`withEnvironment`, after the drop)
   */
  drop?: readonly string[];
  /** shell statements that check the launcher's mounts (`mountCheckScript`), run first; they exit 125 on a difference */
  check?: string;
  /** run the program as PID 2 under this shell as the namespace's init, instead of in its place */
  init?: boolean;
  /**
   * a secret of this run, only in its script: if the shell ends before the program started, it says so in a line
   * holding it (`notStartedLine`), which the program, never having seen the script, cannot write (review K, K9)
   */
  nonce?: string;
}

/**
 * The line a launcher's shell writes last to stderr when it ends without having started the program (a limit that
 * could not be set, a working directory it could not enter, a program it could not exec): from the shell's EXIT trap,
 * which a successful exec never runs. Only this line, never the program's own stderr or status, says the tool did
 * not run.
 */
export function notStartedLine(nonce: string): string {
  return `hldp-sandbox: the tool was not started (${nonce})`;
}

// the namespace's init: the tool as PID 2 with the shell's stdin handed on through descriptor 3 (a background job
// would get /dev/null), the init's own stderr silenced once the tool runs, its status passed on
// (every expansion quoted: the run's environment, exported before, may set IFS)
const INIT_TAIL = `0<&3 3<&- & exec 2>/dev/null 3<&-; wait "$!"`;

let prlimitPath: string | undefined;

/**
 * RLIMIT_NPROC is set by util-linux's prlimit, as on the cold path: `ulimit -p` is the processes limit in dash
 * only (in bash it is the pipe size, which cannot be set), and `-u` is not in dash. By its absolute path: a
 * launcher has no PATH. (Only used where limits apply, which the probe allows only where prlimit runs.)
 */
function processesLimit(limits: ResourceLimits): string[] {
  prlimitPath ??= hostProgram('prlimit');
  return [prlimitPath, `--nproc=${limits.processes}`, '--'];
}

/**
 * The script a waiting launcher sources: it sets the limits, enters the working
 * directory, replaces its whole environment with the run's, and execs the program (or, as a namespace's init, runs
 * it as PID 2). Every value is one single-quoted word. A failure before the program starts exits 125 with a line
 * of the shell's own (`hldp-sandbox: …`).
 */
export function warmScript(run: WarmRun): string {
  // the script's descriptor is the shell's only: nothing the program starts gets it
  const lines: string[] = [`exec ${SCRIPT_FD}<&-`];
  // every way this shell ends before the program starts runs the trap; the exec that starts it does not
  if (run.nonce !== undefined) lines.push(`trap ${shellWord(`echo ${shellWord(notStartedLine(run.nonce))} >&2`)} EXIT`);
  if (run.check !== undefined) lines.push(run.check);
  if (run.limits) lines.push(ulimits(run.limits));
  lines.push(`cd -- ${shellWord(run.cwd)} || exit ${PRELUDE_FAILURE.status}`);
  // the shell exports what it was started with (nothing) and PWD, OLDPWD: the program gets the run's environment only
  lines.push('unset PWD OLDPWD');
  // a shell that drops to run_as is root: nothing of the run's (LD_PRELOAD) may reach it, nor setpriv or prlimit
  // (review O, O1); an unprivileged one is no more than the program it execs, and exports it (one exec the less)
  if (run.drop === undefined) for (const [name, value] of Object.entries(run.env)) lines.push(`export ${name}=${shellWord(value)}`);
  const processes = run.limits && run.processes === true ? processesLimit(run.limits) : [];
  const argv = run.drop === undefined ? [...processes, ...run.argv] : [...run.drop, ...processes, ...withEnvironment(run.env, run.argv)];
  const command = argv.map(shellWord).join(' ');
  if (run.nonce !== undefined) {
    // bash runs no EXIT trap when an exec fails (dash does): a program it cannot find ends the shell here instead
    const program = shellWord(run.argv[0]!);
    lines.push(`command -v -- ${program} >/dev/null 2>&1 || { echo "${SCRIPT_SHELL_NAME}: exec: "${program}": not found" >&2; exit 127; }`);
    // the namespace's init outlives the program: its end is the program's, not a set-up's
    if (run.init) lines.push('trap - EXIT');
  }
  lines.push(run.init ? `exec 3<&0; ${command} ${INIT_TAIL}` : `exec ${command}`);
  return `${lines.join('\n')}\n`;
}
