import { spawn } from 'node:child_process';

/** How a probe command ended. */
export interface ProbeResult {
  ok: boolean;
  /** whether the program started at all (false: not found, not executable) */
  started: boolean;
  stdout: string;
  stderr: string;
  /** the exit code, the signal, or the spawn error, for a message */
  ending: string;
}

const PROBE_TIMEOUT_MS = 10_000;

/** Runs a short command to see what this host allows (`fds`: descriptors it gets from 3 on); never throws. */
export function runProbe(file: string, args: readonly string[], env: Record<string, string> = probeEnvironment(), fds: readonly number[] = []): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let child;
    try {
      child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe', ...fds] as ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ ok: false, started: false, stdout, stderr, ending: (error as Error).message });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, started: false, stdout, stderr, ending: error.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, started: true, stdout, stderr, ending: signal ? `killed by ${signal}` : `exit code ${code}` });
    });
  });
}

/** The environment probes run with: enough to find the programs, nothing of the host's secrets. */
export function probeEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
}

/** A probe's failure in one line: its stderr, or how it ended. */
export function probeFailure(result: ProbeResult): string {
  const text = result.stderr.trim().split('\n').filter(Boolean).slice(-2).join('; ');
  return text || result.ending;
}
