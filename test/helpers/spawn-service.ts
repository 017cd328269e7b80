import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HLDP_BIN, track } from './run-cli.js';

/** A real `hldp` service process and the URL it said it listens on. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /**
   * sends SIGTERM and resolves with the exit code; a process still running `STOP_BOUND_MS` later is killed (SIGKILL)
   * and the promise rejects with what held it (its node report: JavaScript stack and active handles) and its stderr
   */
  stop(): Promise<number | null>;
}

/** How long a service may take to exit after SIGTERM before `stop` calls it a hang. */
export const STOP_BOUND_MS = 20_000;

// how long a node report takes to appear after SIGUSR2 before the hang is told without it
const REPORT_WAIT_MS = 3000;

/** Starts `hldp <args>` (node given `nodeArguments` first, e.g. `--require`) and waits for the line announcing its URL on stderr. */
export function spawnService(args: string[], env: NodeJS.ProcessEnv, announce: RegExp, nodeArguments: string[] = []): Promise<ServiceProcess> {
  // SIGUSR2 makes the process write a node report here: what it was doing (its stack, its open handles) when it hung
  const reports = mkdtempSync(join(tmpdir(), 'hldp-report-'));
  const reporting = ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`];
  const child = track(spawn(process.execPath, [...reporting, ...nodeArguments, HLDP_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => rmSync(reports, { recursive: true, force: true }));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), STOP_BOUND_MS)));
    const outcome = await Promise.race([exited, bound]);
    clearTimeout(timer);
    if (outcome !== 'hung') return outcome;
    const report = await nodeReport(child, reports);
    child.kill('SIGKILL');
    await exited;
    throw new Error(`hldp ${args.join(' ')} (pid ${child.pid}) was still running ${STOP_BOUND_MS / 1000} s after SIGTERM: killed (SIGKILL).\n${report}\n--- its stderr (last 4000 characters) ---\n${stderr.slice(-4000)}`);
  };
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = announce.exec(stderr);
      if (match) resolve({ child, url: match[1]!, stderr: () => stderr, stop });
    });
    child.once('exit', (code) => reject(new Error(`hldp ${args.join(' ')} exited ${code} before listening:\n${stderr}`)));
  });
}

interface NodeReport {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: Array<{ type: string; is_active: boolean; is_referenced?: boolean; localEndpoint?: unknown; remoteEndpoint?: unknown; details?: string }>;
}

/** Asks a hung process for a node report (SIGUSR2) and says what it holds: its JavaScript stack and its active, referenced handles. */
async function nodeReport(child: ChildProcess, folder: string): Promise<string> {
  child.kill('SIGUSR2');
  const until = Date.now() + REPORT_WAIT_MS;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const file = readdirSync(folder).find((name) => name.endsWith('.json'));
    if (file === undefined) continue;
    let report: NodeReport;
    try {
      report = JSON.parse(readFileSync(join(folder, file), 'utf8')) as NodeReport;
    } catch {
      // still being written
      continue;
    }
    const stack = [report.javascriptStack?.message, ...(report.javascriptStack?.stack ?? [])].filter(Boolean).join('\n  ');
    const handles = (report.libuv ?? [])
      .filter((handle) => handle.is_active && handle.is_referenced !== false)
      .map((handle) => `  ${handle.type}${handle.remoteEndpoint ? ` to ${JSON.stringify(handle.remoteEndpoint)}` : ''}${handle.localEndpoint ? ` from ${JSON.stringify(handle.localEndpoint)}` : ''}${handle.details ? ` ${handle.details}` : ''}`);
    return `--- its node report: JavaScript stack ---\n  ${stack || '(none)'}\n--- active handles keeping it alive ---\n${handles.join('\n') || '  (none)'}`;
  }
  return `--- no node report within ${REPORT_WAIT_MS / 1000} s of SIGUSR2 ---`;
}
