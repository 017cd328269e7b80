// What the store benchmarks that time a real `hldp serve` share (huge-receipt.ts, receipt-reads.ts): starting it on a
// home folder, its CPU, /healthz polled beside what is measured, and the sides (this code, the code before) alternated.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A process's CPU so far, user and system, in clock ticks (10 ms here), every thread (`/proc/PID/stat`). */
export function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Sends SIGTERM, and resolves once the process has exited. */
export function stopProcess(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  return new Promise((resolveExit) => child.once('exit', resolveExit));
}

/** How to start one side's server: its store (PostgreSQL when `storeUrl`), more environment, Node's own flags. */
export interface ServeOptions {
  storeUrl?: string | undefined;
  env?: Record<string, string>;
  nodeArgs?: string[];
}

/** `bin serve` on `home`'s repo/, cache/, data/ and ws/, no sandbox, on a free port; resolves once it says where. */
export async function serveGateway(bin: string, home: string, options: ServeOptions = {}): Promise<{ child: ChildProcess; url: string }> {
  const env = {
    ...process.env, ...(options.storeUrl ? { HLDP_STORE_URL: options.storeUrl } : {}), HLDP_CACHE_DIR: join(home, 'cache'), HLDP_DATA_DIR: join(home, 'data'),
    HLDP_WORKSPACE: join(home, 'ws'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'off', ...options.env,
  };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), bin, 'serve', '--repo', join(home, 'repo'), '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / at (http:\/\/[\d.:]+)\n/.exec(stderr);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

/** How long one `GET /healthz` of `url` took, its body read, in ms. */
export async function healthzMs(url: string): Promise<number> {
  const started = performance.now();
  await (await fetch(`${url}/healthz`)).text();
  return performance.now() - started;
}

/**
 * Polls /healthz every `pollMs` (0: not at all) until `stop` is called; `stop` resolves with the longest wait seen and
 * how many polls there were. A poll starts only once the one before was answered, as a load balancer's would.
 */
export function pollHealthz(url: string, pollMs: number): { stop: () => Promise<{ longest: number; polls: number }> } {
  let done = false;
  let longest = 0;
  let polls = 0;
  const polling = (async () => {
    while (!done && pollMs > 0) {
      polls += 1;
      longest = Math.max(longest, await healthzMs(url));
      await new Promise((resolveTimer) => setTimeout(resolveTimer, pollMs));
    }
  })();
  return {
    stop: async () => {
      done = true;
      await polling;
      return { longest, polls };
    },
  };
}

/**
 * Runs `once` for each side `runs` times, the order of the sides swapped at each run (so that neither always runs on a
 * machine the other has just warmed or loaded), printing each result as a JSON line; the results by side's name.
 */
export async function alternate<T extends object>(sides: Array<{ name: string; bin: string }>, runs: number, once: (bin: string) => Promise<T>): Promise<Map<string, T[]>> {
  const results = new Map<string, T[]>(sides.map((side) => [side.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
      const result = await once(side.bin);
      results.get(side.name)!.push(result);
      console.log(JSON.stringify({ side: side.name, run, ...result }));
    }
  }
  return results;
}
