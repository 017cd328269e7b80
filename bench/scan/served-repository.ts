// A generated repository of `size` tools pushed to a bare one and served over smart HTTP by serve-git.ts in a process
// of its own (so that a benchmark's CPU time is the scanner's alone): the bench/scan benchmarks that scan a remote.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { git, initRepository } from '../../test/helpers/git.js';
import { generateRepository } from './generate-repository.js';

export interface ServedRepository {
  /** the working repository, to commit in and `push()` from */
  work: string;
  /** the bare repository's URL */
  url: string;
  /** pushes `work`'s main to the served repository */
  push(): Promise<void>;
  /** stops the git server */
  stop(): void;
}

export async function serveGeneratedRepository(root: string, size: number): Promise<ServedRepository> {
  const work = join(root, 'work');
  const bare = join(root, 'served', 'tools.git');
  await generateRepository(work, size);
  await initRepository(bare, { bare: true });
  const push = async () => void (await git(work, 'push', '-q', bare, 'main'));
  await push();
  const server = spawn(process.execPath, ['--import', 'tsx', new URL('serve-git.ts', import.meta.url).pathname, join(root, 'served')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((done) => server.stdout.once('data', (chunk: Buffer) => done(chunk.toString().trim())));
  return { work, url: `${base}/tools.git`, push, stop: () => void server.kill('SIGTERM') };
}
