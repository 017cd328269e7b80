// A generated repository of `size` tools pushed to a bare one and served over smart HTTP by serve-git.ts in a process
// of its own (so that a benchmark's CPU time is the scanner's alone): the bench/scan benchmarks that scan a remote.
// The repositories are laid out as test/helpers/served-repository.ts lays out the tests' (which serve in-process).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { git } from '../../test/helpers/git.js';
import { repositoryPair } from '../../test/helpers/served-repository.js';
import { generateRepository } from './generate-repository.js';

// USER_HZ: 100 on every Linux Node runs on
const CLOCK_TICKS = 100;

export interface ServedRepository {
  /** the working repository, to commit in and `push()` from */
  work: string;
  /** the bare repository's URL */
  url: string;
  /** pushes `work`'s main to the served repository */
  push(): Promise<void>;
  /** stops the git server */
  stop(): void;
  /** CPU milliseconds the git server has used so far: its own process and the `git http-backend` processes it ran (Linux: /proc; NaN elsewhere) */
  serverCpuMs(): number;
  /** the same, split: the HTTP server's own process (which spawns a CGI per request) and the git processes it ran */
  serverCpuSplitMs(): { server: number; git: number };
}

export async function serveGeneratedRepository(root: string, size: number): Promise<ServedRepository> {
  const { projectRoot, bare, work } = await repositoryPair(root, { makeWork: (path) => generateRepository(path, size) });
  const push = async () => void (await git(work, 'push', '-q', bare, 'main'));
  await push();
  const server = spawn(process.execPath, ['--import', 'tsx', new URL('serve-git.ts', import.meta.url).pathname, projectRoot], { stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((done) => server.stdout.once('data', (chunk: Buffer) => done(chunk.toString().trim())));
  return { work, url: `${base}/tools.git`, push, stop: () => void server.kill('SIGTERM'), serverCpuMs: () => processTreeCpuMs(server.pid), serverCpuSplitMs: () => ({ server: processTreeCpuMs(server.pid, [11, 12]), git: processTreeCpuMs(server.pid, [13, 14]) }) };
}

// utime, stime, and the children's cutime and cstime once they were waited for (every CGI request's git processes)
function processTreeCpuMs(pid: number | undefined, fieldsSummed = [11, 12, 13, 14]): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /, '').split(' ');
    const ticks = fieldsSummed.reduce((sum, field) => sum + Number(fields[field]), 0);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
