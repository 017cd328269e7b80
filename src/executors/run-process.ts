import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { DeclaredSandbox, ErrorCode, ExecutionResult } from '../core/index.js';
import { closePassed, planStdio, processContainment, type LaunchOutcome, type Sandbox } from '../sandbox/index.js';
import { BoundedOutput } from './bounded-output.js';
import { startDeadline, type Deadline, type StopReason } from './deadline.js';
import { describeError, elapsedSince, failedResult } from './execution-result.js';
import { readOutput } from './output-reader.js';

/** Time between SIGTERM and SIGKILL to the process group when a run is stopped. */
export const KILL_GRACE_MS = 100;
/** After the SIGKILL, how long a stopped run waits for its pipes before it stops waiting for them. */
const PIPES_LET_GO_MS = 1_000;

// bubblewrap's status is a few short JSON lines; anything longer is not from it
const STATUS_CAP_BYTES = 4096;

/** Where a process runs isolated: the host's sandbox, the folder it may write, and the tool's declared `sandbox:` block. */
export interface Isolation {
  sandbox: Sandbox;
  /** the shell root or the gatekeeper's root */
  workspace: string;
  declared?: DeclaredSandbox;
}

/** One process to run under the constraints. `file` is run directly: no shell unless it is one. */
export interface ProcessSpec {
  file: string;
  args: readonly string[];
  /** absolute working directory, already confined by the caller */
  cwd: string;
  /** the complete environment of the child (see `minimalEnvironment`) */
  env: Record<string, string>;
  timeoutMs: number;
  /** cap of `output` and, separately, of `stderr` */
  maxOutputBytes: number;
  /** the caller's cancellation */
  signal?: AbortSignal;
  killGraceMs?: number;
  /** the sandbox to run in; without one the process still gets a PID namespace that ends with it (`processContainment`) */
  isolation?: Isolation;
  /** written to the child's stdin, which is then closed; without it stdin is closed from the start */
  input?: string;
  /** exit codes besides 0 that end the run `ok` (a tool's `shell.ok_exit_codes`: grep's 1 is "no match"); `exit_code` still says which */
  okExitCodes?: readonly number[];
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // a negative pid addresses the whole group the detached child leads
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** On the deadline or a cancel: SIGTERM to the group, SIGKILL after the grace, then stop waiting for the pipes. */
function killOnStop(child: ChildProcess, deadline: Deadline, grace: number): () => void {
  const timers: NodeJS.Timeout[] = [];
  const onStop = (): void => {
    signalGroup(child, 'SIGTERM');
    timers.push(
      setTimeout(() => {
        signalGroup(child, 'SIGKILL');
        // a process that left the group (setsid) may still hold the pipes when no namespace contains it: stop waiting
        // for it, but only well after the kill - inside a namespace the pipes close when the last holder is really
        // gone, and a SIGKILLed process on a loaded host can take far longer than the grace to get there
        timers.push(setTimeout(() => child.stdio.forEach((stream) => stream?.destroy()), Math.max(grace, PIPES_LET_GO_MS)));
      }, grace),
    );
  };
  deadline.signal.addEventListener('abort', onStop, { once: true });
  return () => {
    deadline.signal.removeEventListener('abort', onStop);
    for (const timer of timers) clearTimeout(timer);
  };
}

function collectStatus(stream: Readable | null | undefined): () => string {
  let text = '';
  stream?.setEncoding('utf8').on('data', (chunk: string) => {
    if (text.length < STATUS_CAP_BYTES) text += chunk;
  });
  return () => text;
}

/**
 * Runs a process with stdin closed, stdout and stderr captured separately within `maxOutputBytes` each, and a
 * deadline; at the deadline (or on cancel) its group gets SIGTERM, then SIGKILL. It starts through its sandbox:
 * in a PID namespace of its own, so when it ends (or is killed) everything it started ends too, `setsid` or not.
 * Resolves with a result whatever happens; a process that cannot start is `SPAWN_FAILED`.
 */
export async function runProcess(spec: ProcessSpec): Promise<ExecutionResult> {
  const start = performance.now();
  // built first: a bad cap throws here, before anything runs
  const stdout = new BoundedOutput(spec.maxOutputBytes);
  const stderr = new BoundedOutput(spec.maxOutputBytes);
  const sandbox = spec.isolation?.sandbox ?? (await processContainment());
  const launch = await sandbox.launch({
    file: spec.file,
    args: spec.args,
    cwd: spec.cwd,
    env: spec.env,
    workspace: spec.isolation?.workspace ?? spec.cwd,
    ...(spec.isolation?.declared ? { declared: spec.isolation.declared } : {}),
    warm: true,
  });
  if (!launch.ok) return failedResult(launch.code, launch.message, start);
  const { plan } = launch;
  let child: ChildProcess;
  try {
    if (plan.started) child = plan.started;
    else {
      const input = spec.input === undefined ? 'ignore' : 'pipe';
      const stdio = planStdio(plan, plan.statusFd === undefined ? [input, 'pipe', 'pipe'] : [input, 'pipe', 'pipe', 'pipe']);
      try {
        child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: stdio as ['ignore', 'pipe', 'pipe'], windowsHide: true });
      } finally {
        // the launcher has its own copies now (the seccomp program's, the binds' sources)
        closePassed(plan);
      }
    }
  } catch (error) {
    await plan.finish({ exitCode: null, signal: null, status: '', stderr: '', stopped: false });
    return failedResult('SPAWN_FAILED', describeError(error), start);
  }
  // a program that exits without reading its input is its own business: EPIPE is not a failure of the run
  child.stdin?.on('error', () => undefined);
  // a launcher started ahead of its run has a stdin pipe whatever the run: without input, it is closed at once
  if (spec.input !== undefined) child.stdin!.end(spec.input);
  else child.stdin?.end();
  readOutput(child.stdout!, stdout);
  readOutput(child.stderr!, stderr);
  const status = collectStatus(plan.statusFd === undefined ? undefined : (child.stdio[plan.statusFd] as Readable));
  // the leader is gone: its leftovers would be orphans, and their open pipes would keep the run waiting
  child.once('exit', () => signalGroup(child, 'SIGKILL'));
  const deadline = startDeadline(spec.timeoutMs, spec.signal);
  const stopKilling = killOnStop(child, deadline, spec.killGraceMs ?? KILL_GRACE_MS);
  const closed = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null } | ExecutionResult>((resolve) => {
    child.once('error', (error) => {
      // an error before a pid means the program never started; after it, 'close' still reports the end
      if (child.pid === undefined) resolve(failedResult('SPAWN_FAILED', describeError(error), start));
    });
    child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => resolve({ exitCode, signal }));
  });
  deadline.clear();
  stopKilling();
  if ('ok' in closed) {
    // nothing started: the launch only has to let go of what it holds
    await plan.finish({ exitCode: null, signal: null, status: '', stderr: '', stopped: false });
    return closed;
  }
  const stopped = deadline.reason();
  const outcome = await plan.finish({ ...closed, status: status(), stderr: stderr.render().text, stopped: stopped !== null });
  const ending = { stdout, stderr, outcome, stopped, timeoutMs: spec.timeoutMs, start, okExitCodes: spec.okExitCodes };
  try {
    return toResult(ending);
  } catch (error) {
    return unrendered(ending, error);
  }
}

/**
 * The receipt of a run whose output could not be made into text (longer than V8's longest string): the run happened,
 * so its end and its byte counts are told, and the text it wrote is left out, counted as cut (review K, K6: such a run
 * was an INTERNAL_ERROR with exit_code null and output_bytes 0).
 */
function unrendered(ending: Ending, error: unknown): ExecutionResult {
  const { outcome } = ending;
  const total = ending.stdout.totalBytes + ending.stderr.totalBytes;
  const end = outcome.signal !== null ? `was killed by ${outcome.signal}` : outcome.exitCode !== null ? `exited with code ${outcome.exitCode}` : 'ended';
  return {
    ok: false,
    output: '',
    error: `the tool ran and ${end}, but its ${total} bytes of output could not be kept (lower max_output_bytes): ${describeError(error)}`,
    stderr: '',
    code: 'INTERNAL_ERROR',
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    timed_out: ending.stopped === 'timeout',
    output_bytes: total,
    cut_bytes: total,
    duration_ms: elapsedSince(ending.start),
  };
}

interface Ending {
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  outcome: LaunchOutcome;
  stopped: StopReason | null;
  timeoutMs: number;
  start: number;
  okExitCodes?: readonly number[] | undefined;
}

function toResult(ending: Ending): ExecutionResult {
  const { outcome } = ending;
  const out = ending.stdout.render();
  const err = withoutLine(ending.stderr.render(), outcome.launcherLine);
  const code = classify(ending);
  return {
    ok: code === null,
    output: out.text,
    error: code === null ? null : withNote(describeFailure(code, ending, err.text), outcome.note),
    stderr: err.text,
    code,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    timed_out: ending.stopped === 'timeout',
    output_bytes: out.totalBytes + err.totalBytes,
    cut_bytes: out.cutBytes + err.cutBytes,
    duration_ms: elapsedSince(ending.start),
    ...(code === 'RESOURCE_LIMIT' ? { resource_limit: outcome.resourceLimit!.name } : {}),
    ...(out.lossy ? { output_lossy: true } : {}),
    ...(err.lossy ? { stderr_lossy: true } : {}),
  };
}

// stderr without the launcher's line that said the tool never started (written last, after anything of the tool's)
function withoutLine<Rendered extends { text: string; totalBytes: number }>(rendered: Rendered, line: string | undefined): Rendered {
  const at = line === undefined ? -1 : rendered.text.lastIndexOf(`${line}\n`);
  if (at < 0) return rendered;
  return { ...rendered, text: rendered.text.slice(0, at) + rendered.text.slice(at + line!.length + 1), totalBytes: rendered.totalBytes - Buffer.byteLength(line!) - 1 };
}

function classify({ stopped, outcome, okExitCodes }: Ending): ErrorCode | null {
  if (outcome.failure) return outcome.failure.code;
  // a limit explains a stop too: a fork bomb runs into its deadline, retrying the forks the limit refuses
  if (outcome.resourceLimit) return 'RESOURCE_LIMIT';
  if (stopped === 'timeout') return 'TIMEOUT';
  if (stopped === 'cancelled') return 'CANCELLED';
  if (outcome.signal !== null) return 'KILLED_BY_SIGNAL';
  if (outcome.exitCode !== 0 && !(outcome.exitCode !== null && okExitCodes?.includes(outcome.exitCode))) return 'NONZERO_EXIT';
  return null;
}

// the gateway's line after the run's own words, which it never replaces (the receipt's `stderr` stays the tool's alone)
function withNote(error: string, note: string | undefined): string {
  if (note === undefined) return error;
  return `${error}${error === '' || error.endsWith('\n') ? '' : '\n'}${note}`;
}

// A non-zero exit is reported by its own stderr, untouched; a stop or a limit says why first, then the stderr.
function describeFailure(code: ErrorCode, ending: Ending, stderr: string): string {
  const { outcome } = ending;
  if (code === 'NONZERO_EXIT') return stderr !== '' ? stderr : `exited with code ${outcome.exitCode} and wrote nothing to stderr`;
  const why =
    code === 'SANDBOX_FAILED' || code === 'SPAWN_FAILED'
      ? outcome.failure!.message
      : code === 'RESOURCE_LIMIT'
        ? outcome.resourceLimit!.message
        : code === 'TIMEOUT'
          ? `timed out after ${ending.timeoutMs} ms; the process group was killed (SIGTERM, then SIGKILL)`
          : code === 'CANCELLED'
            ? 'cancelled by the caller; the process group was killed (SIGTERM, then SIGKILL)'
            : `killed by ${outcome.signal}`;
  // a failed set-up's message is bubblewrap's stderr itself
  if (outcome.failure) return why;
  return stderr !== '' ? `${why}\n${stderr}` : why;
}
