// memz23: `hldp serve` caught SIGTERM and SIGINT only once it had written "serving …": a supervisor's stop sent as it
// read that line, or while the start (the scan of a remote) was under way, found no listener, and Node's default ended
// the process at once — no shutdown, its row in the store's roll of live instances never marked left, the log's last
// lines lost (pino writes them after the line that said it serves). One start in three of a loop that sent SIGTERM at
// the serving line died so (on a loaded host); a signal during the scan did every time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { heldRemote } from '../helpers/held-remote.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { instanceRoll, loggedMessages, useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('info');

describe('hldp serve stopped by a signal', () => {
  it('sent as soon as it says it serves: shuts down, marks its row in the roll left, exits 0', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/echo/TOOL.hdlp': makeToolYaml('echo') });
    const server = await home.serve(['--repo', repo]);
    // at once, as a supervisor that waits for the line does
    const exit = new Promise<[number | null, string | null]>((resolve) => server.child.once('exit', (code, signal) => resolve([code, signal])));
    server.child.kill('SIGTERM');
    expect(await exit).toEqual([0, null]);
    expect(loggedMessages(server.stderr())).toEqual(expect.arrayContaining(['gateway listening', 'shutting down: letting calls in flight finish', 'gateway stopped']));
    expect(instanceRoll(home)).toEqual([{ instance: expect.stringContaining(`pid ${server.child.pid} `), left_ms: expect.any(Number) }]);
  });

  it('sent while it scans a remote: the start is finished, the gateway stopped unannounced, its row marked left, exit 0', async () => {
    const remote = await heldRemote(home.path);
    try {
      const child = track(spawn(process.execPath, [HLDP_BIN, 'serve', '--repo', remote.url, '--port', '0'], { env: { ...process.env, ...home.env }, stdio: ['ignore', 'ignore', 'pipe'] }));
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
      await remote.fetched;
      child.kill('SIGTERM');
      // the signal is seen before the fetch goes on
      for (let i = 0; i < 400 && !/SIGTERM while starting/.test(stderr) && child.exitCode === null && child.signalCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      remote.answer();
      expect(await exit).toEqual([0, null]);
      expect(stderr).toContain('hldp: SIGTERM while starting: the gateway stops as soon as its start is done (SIGTERM again exits at once)');
      expect(stderr).not.toMatch(/hldp: serving/);
      expect(loggedMessages(stderr)).toEqual(expect.arrayContaining(['stopping once started: the start is under way', 'shutting down: letting calls in flight finish', 'gateway stopped']));
      expect(instanceRoll(home)).toEqual([{ instance: expect.stringContaining(`pid ${child.pid} `), left_ms: expect.any(Number) }]);
    } finally {
      await remote.close();
    }
  });
});
