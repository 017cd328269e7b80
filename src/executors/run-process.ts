import { spawn, type ChildProcess } from 'node:child_process';
import type { ErrorCode, ExecutionResult } from '../core/index.js';
import { BoundedOutput } from './bounded-output.js';
import { startDeadline, type Deadline, type StopReason } from './deadline.js';
import { describeError, elapsedSince, failedResult } from './execution-result.js';

/** Time between SIGTERM and SIGKILL to the process group when a run is stopped. */
export const KILL_GRACE_MS = 100;

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
        // a process that left the group (setsid) may still hold the pipes: stop waiting for it
        timers.push(setTimeout(() => (child.stdout!.destroy(), child.stderr!.destroy()), grace));
      }, grace),
    );
  };
  deadline.signal.addEventListener('abort', onStop, { once: true });
  return () => {
    deadline.signal.removeEventListener('abort', onStop);
    for (const timer of timers) clearTimeout(timer);
  };
}

/**
 * Runs a process in its own process group with stdin closed, stdout and stderr captured separately within
 * `maxOutputBytes` each, and a deadline; at the deadline (or on cancel) the group gets SIGTERM, then SIGKILL.
 * When the process ends, whatever it left running in its group is killed: nothing outlives the run.
 * Resolves with a result whatever happens; a process that cannot start is `SPAWN_FAILED`.
 */
export async function runProcess(spec: ProcessSpec): Promise<ExecutionResult> {
  const start = performance.now();
  // built first: a bad cap throws here, before anything runs
  const stdout = new BoundedOutput(spec.maxOutputBytes);
  const stderr = new BoundedOutput(spec.maxOutputBytes);
  let child: ChildProcess;
  try {
    child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  } catch (error) {
    return failedResult('SPAWN_FAILED', describeError(error), start);
  }
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  // the leader is gone: its leftovers would be orphans, and their open pipes would keep the run waiting
  child.once('exit', () => signalGroup(child, 'SIGKILL'));
  const deadline = startDeadline(spec.timeoutMs, spec.signal);
  const stopKilling = killOnStop(child, deadline, spec.killGraceMs ?? KILL_GRACE_MS);
  const result = await new Promise<ExecutionResult>((resolve) => {
    child.once('error', (error) => {
      // an error before a pid means the program never started; after it, 'close' still reports the end
      if (child.pid === undefined) resolve(failedResult('SPAWN_FAILED', describeError(error), start));
    });
    child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
      resolve(toResult({ stdout, stderr, exitCode, signal, stopped: deadline.reason(), timeoutMs: spec.timeoutMs, start }));
    });
  });
  deadline.clear();
  stopKilling();
  return result;
}

interface Ending {
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stopped: StopReason | null;
  timeoutMs: number;
  start: number;
}

function toResult(ending: Ending): ExecutionResult {
  const out = ending.stdout.render();
  const err = ending.stderr.render();
  const code = classify(ending);
  return {
    ok: code === null,
    output: out.text,
    error: code === null ? null : describeFailure(code, ending, err.text),
    stderr: err.text,
    code,
    exit_code: ending.exitCode,
    signal: ending.signal,
    timed_out: ending.stopped === 'timeout',
    output_bytes: out.totalBytes + err.totalBytes,
    cut_bytes: out.cutBytes + err.cutBytes,
    duration_ms: elapsedSince(ending.start),
  };
}

function classify({ stopped, exitCode, signal }: Ending): ErrorCode | null {
  if (stopped === 'timeout') return 'TIMEOUT';
  if (stopped === 'cancelled') return 'CANCELLED';
  if (signal !== null) return 'KILLED_BY_SIGNAL';
  if (exitCode !== 0) return 'NONZERO_EXIT';
  return null;
}

// A non-zero exit is reported by its own stderr, untouched; a stop says why first, then the stderr.
function describeFailure(code: ErrorCode, ending: Ending, stderr: string): string {
  if (code === 'NONZERO_EXIT') return stderr !== '' ? stderr : `exited with code ${ending.exitCode} and wrote nothing to stderr`;
  const why =
    code === 'TIMEOUT'
      ? `timed out after ${ending.timeoutMs} ms; the process group was killed (SIGTERM, then SIGKILL)`
      : code === 'CANCELLED'
        ? 'cancelled by the caller; the process group was killed (SIGTERM, then SIGKILL)'
        : `killed by ${ending.signal}`;
  return stderr !== '' ? `${why}\n${stderr}` : why;
}
