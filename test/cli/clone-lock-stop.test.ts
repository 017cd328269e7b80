// `hldp serve` stopped by SIGTERM while another process holds the clone's lock (a second server of the same remote
// into the same cache, the first held in its fetch): the wait for the lock ends on the signal, where it waited out the
// lock's two minutes (notes 56-57). Neither process leaves a lock behind, and a later start serves the remote.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heldRemote } from '../helpers/held-remote.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { heldProbe, servesAgain, startService } from '../helpers/starting-service.js';

const home = useServiceHome('info');

const serving = /hldp: serving 1 tools from /;

/** The lock folders proper-lockfile leaves beside a locked one, anywhere under `folder`. */
const locks = (folder: string): string[] => readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.lock'));

describe('hldp serve stopped while another process holds the clone lock', () => {
  it('exits 143 at once, leaves no lock, and a later start serves the remote', { timeout: 120_000 }, async () => {
    const remote = await heldRemote(home.path);
    try {
      const args = ['serve', '--repo', remote.url, '--port', '0'];
      // the first holds the clone's lock while its fetch waits on the remote
      const holder = startService(home, args);
      await remote.fetched;
      // the second's sandbox probe, begun with its first scan (its signals caught before), says it is there
      const probe = await heldProbe(join(home.path, 'probe'));
      const waiter = startService(home, args, probe.env);
      await probe.probing();
      await probe.release();
      // the scan is at the lock within milliseconds: a signal before it is also one the wait must end on
      await new Promise((resolve) => setTimeout(resolve, 500));
      waiter.child.kill('SIGTERM');
      // far inside the lock's own wait (two minutes), and the holder still holds it: the stop was the signal
      expect(await waiter.exitWithin(20_000), waiter.stderr()).toEqual([143, null]);
      expect(waiter.stderr()).toContain('hldp: stopped while starting (SIGTERM): the first scan was stopped, nothing was served');
      expect(waiter.stderr()).not.toMatch(serving);
      holder.child.kill('SIGTERM');
      expect(await holder.exitWithin(20_000), holder.stderr()).toEqual([143, null]);
      expect(locks(join(home.path, 'cache'))).toEqual([]);
      remote.answer();
      await servesAgain(home, args, serving);
    } finally {
      await remote.close();
    }
  });
});
