import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { track } from '../helpers/run-cli.js';

// A benchmark interrupted while a child still wrote in its work folder printed "could not remove the work folder …:
// ENOTEMPTY" after 46 s of retries (the lead's CI run, .git/hooks): Node 20's rm retries only the last rmdir and never
// clears the folder again. Every try is a whole removal now.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('a benchmark interrupted while a child still writes in its work folder removes the folder and ends by the signal', async () => {
  const child = track(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/writing-bench.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const folder = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.trim());
    });
    void exited.then((end) => reject(new Error(`ended before it was ready: ${JSON.stringify(end)} ${stderr}`)));
  });
  try {
    child.kill('SIGINT');
    const end = await exited;
    expect(end.signal === 'SIGINT' || end.code === 130, `${JSON.stringify(end)} ${stderr}`).toBe(true);
    expect(stderr).toBe(`SIGINT: removed the work folder ${folder}\n`);
    expect(existsSync(folder)).toBe(false);
  } finally {
    child.kill('SIGKILL');
  }
}, 120_000);
