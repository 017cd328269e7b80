import { readFileSync } from 'node:fs';
import { hostProgram } from './bubblewrap.js';
import { decodeStatus } from './exit-status.js';
import { PRELUDE_FAILURE } from './resource-limits.js';
import { notStartedLine, SCRIPT_SHELL_NAME } from './warm-script.js';
import type { LaunchEnding, LaunchOutcome } from './sandbox.js';

function lastLine(text: string, prefix: string): string | undefined {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .at(-1);
}

// prlimit (or env) execs the tool; when it cannot, it says so and exits 126 or 127 before the tool ever ran. The shell that
// sets a cold run's limits says so in a line of its own and exits 125. Both are read from the stderr the tool writes
// too: only where the tool runs unisolated, as the gateway's own user, who could forge anything anyway (a cold run
// with the sandbox off); a waiting launcher's run and a sandboxed one are never read so
function prlimitFailure(outcome: LaunchOutcome, stderr: string): LaunchOutcome {
  if (outcome.exitCode === PRELUDE_FAILURE.status && stderr.includes(PRELUDE_FAILURE.line)) {
    return { exitCode: null, signal: null, failure: { code: 'SANDBOX_FAILED', message: `the sandbox could not be set up, so the tool did not run: ${stderr.trim()}` } };
  }
  if (outcome.exitCode !== 126 && outcome.exitCode !== 127) return outcome;
  // the `env -i` that gives the program its environment (`withEnvironment`) says so in its own words
  const line = lastLine(stderr, 'prlimit: failed to execute ') ?? lastLine(stderr, `${hostProgram('env')}: `);
  return line === undefined ? outcome : { exitCode: null, signal: null, failure: { code: 'SPAWN_FAILED', message: line } };
}

/**
 * A waiting launcher's end, read from the line its shell writes only when it ends before the program started (its
 * EXIT trap, with the run's secret `nonce`): the program cannot write that line, so whatever it prints and however it
 * exits, a run whose program started is the program's own end (review K, K9: a tool printed the shell's failure line
 * and exited 125 or 127 to make its receipt say it never ran).
 */
function launcherFailure(outcome: LaunchOutcome, stderr: string, nonce: string): LaunchOutcome {
  const marker = notStartedLine(nonce);
  if (!stderr.split('\n').includes(marker)) return outcome;
  const said = stderr
    .split('\n')
    .filter((line) => line !== marker)
    .join('\n')
    .trim();
  // decided on the line; then it is the launcher's, not the tool's: the receipt neither shows its secret nor counts it (review userZ5, F6)
  if (outcome.exitCode === 126 || outcome.exitCode === 127) {
    return { exitCode: null, signal: null, failure: { code: 'SPAWN_FAILED', message: lastLine(said, `${SCRIPT_SHELL_NAME}: `) ?? (said || `the program could not be started (exit ${outcome.exitCode})`) }, launcherLine: marker };
  }
  return { exitCode: null, signal: null, failure: { code: 'SANDBOX_FAILED', message: `the sandbox could not be set up, so the tool did not run: ${said || `the launcher's shell exited with code ${outcome.exitCode}`}` }, launcherLine: marker };
}

/** The tool's end when it ran directly: what the process reported. */
export async function directOutcome(ending: LaunchEnding): Promise<LaunchOutcome> {
  return prlimitFailure({ exitCode: ending.exitCode, signal: ending.signal }, ending.stderr);
}

/**
 * The tool's end when a namespace init ran it: a status of 128+N is signal N. `nonce`: the run's secret, when a
 * waiting launcher ran it (whose shell says so when the program never started).
 */
export async function initOutcome(ending: LaunchEnding, nonce?: string): Promise<LaunchOutcome> {
  const decoded = ending.signal !== null ? { exitCode: null, signal: ending.signal } : decodeStatus(ending.exitCode, null);
  return nonce === undefined ? prlimitFailure(decoded, ending.stderr) : launcherFailure(decoded, ending.stderr, nonce);
}

/**
 * The tool's end inside bubblewrap, from its JSON status: an `exit-code` line means what bubblewrap started ran and
 * ended so (128+N is signal N); none means bubblewrap stopped before the tool ran, and its own error (`bwrap: …`) says
 * why. Inside the sandbox the tool's stderr and status never say it did not run: a waiting launcher's shell says
 * so in a line with the run's secret `nonce`, and bubblewrap started the tool (or prlimit) itself otherwise.
 */
export async function bubblewrapOutcome(ending: LaunchEnding, nonce?: string): Promise<LaunchOutcome> {
  let exitCode: number | undefined;
  let namespaceInit: number | undefined;
  for (const line of ending.status.split('\n')) {
    try {
      const value = JSON.parse(line) as { 'exit-code'?: unknown; 'child-pid'?: unknown };
      if (typeof value['exit-code'] === 'number') exitCode = value['exit-code'];
      if (typeof value['child-pid'] === 'number') namespaceInit = value['child-pid'];
    } catch {
      // not a status line
    }
  }
  if (namespaceInit !== undefined) await untilGone(namespaceInit);
  // bubblewrap started `env -i … program` (the tool's environment is set after the drop: review O, O1), whose own
  // failure to start the program (126/127 and its line) is read as prlimit's is
  if (exitCode !== undefined) return nonce === undefined ? prlimitFailure(decodeStatus(exitCode, null), ending.stderr) : launcherFailure(decodeStatus(exitCode, null), ending.stderr, nonce);
  // stopped by the runner before the tool ended: bubblewrap itself was killed
  if (ending.stopped || ending.signal !== null) return { exitCode: ending.exitCode, signal: ending.signal };
  const said = lastLine(ending.stderr, 'bwrap: ') ?? (ending.stderr.trim() || `bubblewrap exited with code ${ending.exitCode} before the tool started`);
  if (said.startsWith('bwrap: execvp ')) return { exitCode: null, signal: null, failure: { code: 'SPAWN_FAILED', message: said } };
  return { exitCode: null, signal: null, failure: { code: 'SANDBOX_FAILED', message: `the sandbox could not be set up, so the tool did not run: ${said}` } };
}

const GONE_WAIT_MS = 5_000;

// The init of the namespace exits only once the kernel has killed and reaped every process left in it.
function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
  return state !== 'Z' && state !== 'X';
}

/**
 * Waits until the namespace's init (bubblewrap's PID 1, `child-pid` in its status) is gone, and with it everything
 * in the namespace. bubblewrap reports the tool's end and exits as soon as the tool ends; its init then dies of
 * --die-with-parent a moment later, so without this wait a `setsid` child could still be alive as the receipt returns.
 */
async function untilGone(pid: number): Promise<void> {
  const deadline = performance.now() + GONE_WAIT_MS;
  for (let pause = 1; isRunning(pid) && performance.now() < deadline; pause = Math.min(pause * 2, 20)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
