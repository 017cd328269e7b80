import { spawn, type ChildProcess } from 'node:child_process';
import { HLDP_BIN, track } from './run-cli.js';

/** A real `hldp` service process and the URL it said it listens on. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** sends SIGTERM and resolves with the exit code */
  stop(): Promise<number | null>;
}

/** Starts `hldp <args>` (node given `nodeArguments` first, e.g. `--require`) and waits for the line announcing its URL on stderr. */
export function spawnService(args: string[], env: NodeJS.ProcessEnv, announce: RegExp, nodeArguments: string[] = []): Promise<ServiceProcess> {
  const child = track(spawn(process.execPath, [...nodeArguments, HLDP_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = announce.exec(stderr);
      if (match) {
        resolve({
          child,
          url: match[1]!,
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`hldp ${args.join(' ')} exited ${code} before listening:\n${stderr}`)));
  });
}
