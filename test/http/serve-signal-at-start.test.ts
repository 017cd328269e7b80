// memz23: `hldp serve` caught SIGTERM and SIGINT only once it had written "serving …": a supervisor's stop sent as it
// read that line, or while the start (the scan of a remote) was under way, found no listener, and Node's default ended
// the process at once — no shutdown, its row in the store's roll of live instances never marked left, the log's last
// lines lost (pino writes them after the line that said it serves). One start in three of a loop that sent SIGTERM at
// the serving line died so (on a loaded host); a signal during the scan did every time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer } from '../helpers/git-http-server.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('info');

// the messages of the process's JSON log lines, in order
const logged = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);

// this store's roll of live instances: each row's instance and when it said it left (null: it never did)
function roll(): Array<{ instance: string; left_ms: number | null }> {
  const database = new Database(join(home.path, 'data', 'receipts.db'), { readonly: true });
  try {
    return database.prepare('SELECT instance, left_ms FROM gateway_instances').all() as Array<{ instance: string; left_ms: number | null }>;
  } finally {
    database.close();
  }
}

describe('hldp serve stopped by a signal', () => {
  it('sent as soon as it says it serves: shuts down, marks its row in the roll left, exits 0', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
    const server = await home.serve(['--repo', repo]);
    // at once, as a supervisor that waits for the line does
    const exit = new Promise<[number | null, string | null]>((resolve) => server.child.once('exit', (code, signal) => resolve([code, signal])));
    server.child.kill('SIGTERM');
    expect(await exit).toEqual([0, null]);
    expect(logged(server.stderr())).toEqual(expect.arrayContaining(['gateway listening', 'shutting down: letting calls in flight finish', 'gateway stopped']));
    expect(roll()).toEqual([{ instance: expect.stringContaining(`pid ${server.child.pid} `), left_ms: expect.any(Number) }]);
  });

  it('sent while it scans a remote: the start is finished, the gateway stopped unannounced, its row marked left, exit 0', async () => {
    const served = join(home.path, 'served');
    await initRepository(join(served, 'tools.git'), { bare: true });
    // the remote answers the clone's fetch only once the test has sent the signal
    let fetching!: () => void;
    const fetched = new Promise<void>((resolve) => (fetching = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const gitServer = await startGitHttpServer({
      projectRoot: served,
      beforeServing: async (method, path) => {
        if (method === 'POST' && path.endsWith('/git-upload-pack')) {
          fetching();
          await answered;
        }
      },
    });
    try {
      const work = await initRepository(join(home.path, 'work'));
      await commitFiles(work, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
      await git(work, 'push', '-q', `${gitServer.url}/tools.git`, 'main');
      const child = track(spawn(process.execPath, [HLDP_BIN, 'serve', '--repo', `${gitServer.url}/tools.git`, '--port', '0'], { env: { ...process.env, ...home.env }, stdio: ['ignore', 'ignore', 'pipe'] }));
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
      await fetched;
      child.kill('SIGTERM');
      // the signal is seen before the fetch goes on
      for (let i = 0; i < 400 && !/SIGTERM while starting/.test(stderr) && child.exitCode === null && child.signalCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      answer();
      expect(await exit).toEqual([0, null]);
      expect(stderr).toContain('hldp: SIGTERM while starting: the gateway stops as soon as its start is done (SIGTERM again exits at once)');
      expect(stderr).not.toMatch(/hldp: serving/);
      expect(logged(stderr)).toEqual(expect.arrayContaining(['stopping once started: the start is under way', 'shutting down: letting calls in flight finish', 'gateway stopped']));
      expect(roll()).toEqual([{ instance: expect.stringContaining(`pid ${child.pid} `), left_ms: expect.any(Number) }]);
    } finally {
      answer();
      await gitServer.close();
    }
  });
});
