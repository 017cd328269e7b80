import { spawn } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { processesMatching, uniqueSleep } from '../executors/support/processes.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// A gateway that is not root: bubblewrap makes a user namespace, the processes limit is RLIMIT_NPROC counted in it,
// and without bubblewrap unshare makes the PID namespace inside a user namespace. Run as nobody when the tests are root.
const FIXTURE = fileURLToPath(new URL('./fixtures/run-tools.mjs', import.meta.url));
const root = process.getuid?.() === 0;

let temp: { path: string; cleanup: () => Promise<void> };
let workspace: string;

interface Report {
  uid: number;
  status: { sandbox: string; containment: string; limits: { processes: string } };
  results: Array<{ ok: boolean; code: string | null; output: string; resource_limit?: string }>;
}

function runAsUser(argument: object): Promise<Report> {
  const command = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, FIXTURE] : [process.execPath, FIXTURE];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), JSON.stringify(argument)], { cwd: workspace, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as Report) : reject(new Error(`fixture exited ${code}: ${stderr}`))));
  });
}

describeWithBubblewrap('a sandbox whose gateway is not root', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    workspace = join(temp.path, 'workspace');
    await mkdir(workspace);
    // nobody must reach the workspace through the temporary folder
    await chmod(temp.path, 0o755);
    await chmod(workspace, 0o777);
  });
  afterAll(() => temp?.cleanup());

  describe.each(['auto', 'off'])('when the mode is %s', (mode) => {
    it('limits processes with RLIMIT_NPROC in its user namespace, and leaves no daemon behind', async () => {
      const sleep = uniqueSleep();
      const report = await runAsUser({
        mode,
        workspace,
        runs: [
          { cmd: 'echo written > w.txt && cat w.txt' },
          { cmd: 'b() { b & b & wait; }; b', declared: { limits: { processes: 16 } } },
          { cmd: `setsid ${sleep.command} >/dev/null 2>&1 & echo started` },
        ],
      });
      expect(report.uid).not.toBe(0);
      expect(report.status).toMatchObject({ sandbox: mode === 'auto' ? 'on' : 'off', containment: 'pid-namespace', limits: { processes: 'rlimit' } });
      expect(report.results[0]).toMatchObject({ ok: true, output: 'written\n' });
      expect(report.results[1]).toMatchObject({ ok: false, code: 'RESOURCE_LIMIT', resource_limit: 'processes' });
      expect(report.results[2]).toMatchObject({ ok: true, output: 'started\n' });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });
  });
});
