// memz23: `hldp serve` caught SIGTERM and SIGINT only once it had written "serving …": a supervisor's stop sent as it
// read that line, or while the start (the scan of a remote) was under way, found no listener, and Node's default ended
// the process at once — no shutdown, its row in the store's roll of live instances never marked left, the log's last
// lines lost (pino writes them after the line that said it serves). One start in three of a loop that sent SIGTERM at
// the serving line died so (on a loaded host); a signal during the scan did every time.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { instanceRoll, loggedMessages, useServiceHome } from '../helpers/serve-process.js';
import { startService } from '../helpers/starting-service.js';

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

  it('sent while a remote drips its ref listing a byte at a time: exits 130 on SIGINT, not at the listing\'s 5-minute bound', async () => {
    let asked!: () => void;
    const listing = new Promise<void>((resolve) => (asked = resolve));
    const drips = new Set<NodeJS.Timeout>();
    const dripping = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.write('0');
      asked();
      const drip = setInterval(() => response.write('0'), 1000);
      drips.add(drip);
      request.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => dripping.listen(0, '127.0.0.1', resolve));
    try {
      const started = startService(home, ['serve', '--repo', `http://127.0.0.1:${(dripping.address() as AddressInfo).port}/tools.git`, '--port', '0']);
      await listing;
      started.child.kill('SIGINT');
      // far inside the listing's bound (5 min) and its idle bound (a byte a second keeps it alive): the stop was the signal
      expect(await started.exitWithin(20_000), started.stderr()).toEqual([130, null]);
      expect(started.stderr()).toContain('hldp: stopped while starting (SIGINT): the first scan was stopped, nothing was served');
    } finally {
      for (const drip of drips) clearInterval(drip);
      dripping.closeAllConnections();
      await new Promise<void>((resolve) => dripping.close(() => resolve()));
    }
  });
});
