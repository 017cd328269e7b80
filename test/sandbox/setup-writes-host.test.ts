import { chmod, chown, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Found by helper sbx11: bubblewrap 0.8 makes each bind's missing destination by path, following symlinks, from a
// root where the host's is reachable as /oldroot. A tool that exchanges a folder of the workspace holding a bound path
// (here a PATH folder, bound read-only again on top of the workspace) with a link to `…/../oldroot/<host folder>` while
// other calls launch had bubblewrap, as root, make the bound folder in the host folder. The mount itself was refused by
// the mount check; the host was written anyway. A running `hldp serve` called over HTTP, as an agent calls it.

let temp: { path: string; cleanup: () => Promise<void> };
let project: string;
let outside: string;
let serve: ServiceProcess | undefined;

interface Receipt {
  ok: boolean;
  code: string | null;
  output: string;
}

async function shell(cmd: string): Promise<Receipt> {
  const response = await fetch(`${serve!.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'shell-exec', params: { cmd } }) });
  return (await response.json()) as Receipt;
}

/**
 * The flipper: the workspace's `node_modules` (holding `.bin`, on the gateway's PATH as `npx hldp serve` puts it, which
 * every launch binds read-only on top of the workspace) exchanged with the link `nm`, again and again, for `seconds` at
 * most: it stops sooner once the workspace holds `stop` (the test's calls are done; looked at every 64 exchanges).
 */
function flipper(target: string, seconds: number): string {
  return [
    'import ctypes, os, time',
    'libc = ctypes.CDLL(None, use_errno=True)',
    // as many `..` as any depth needs: above the sandbox's root they stay there, where bubblewrap's setup has /oldroot
    `os.symlink('../' * 40 + 'oldroot' + ${JSON.stringify(target)}, 'nm')`,
    `end = time.time() + ${seconds}; n = 0`,
    'while time.time() < end:',
    "    libc.renameat2(-100, b'node_modules', -100, b'nm', 2); n += 1",
    "    if n % 64 == 0:",
    "        if os.path.exists('stop'): break",
    '        time.sleep(0.0005)',
    "if os.path.islink('node_modules'): libc.renameat2(-100, b'node_modules', -100, b'nm', 2)",
  ].join('\n');
}

describeWithBubblewrap("bubblewrap's setup, raced by a tool that swaps a folder for a link to /oldroot", () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-setup-writes-');
    project = join(temp.path, 'proj');
    outside = join(temp.path, 'outside');
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await mkdir(outside);
    await chmod(temp.path, 0o755);
  });
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
    await temp.cleanup();
  });

  for (const runAs of ['nobody', 'root']) {
    it(`makes nothing in a host folder outside the workspace (run_as ${runAs})`, async () => {
      // run_as must be able to move node_modules (a folder's rename writes its `..`)
      if (process.getuid?.() === 0 && runAs === 'nobody') await chown(join(project, 'node_modules'), 65534, 65534);
      const env = { HOME: temp.path, PATH: `${join(project, 'node_modules', '.bin')}:${process.env.PATH}`, HLDP_WORKSPACE: project, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: runAs };
      serve = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
      await writeFile(join(project, 'flip.py'), flipper(outside, 15));
      // a root workspace (not a git working tree) is given to run_as at its first run: the flipper must write it
      expect(await shell('true')).toMatchObject({ ok: true });
      const flipping = shell('/usr/bin/python3 flip.py');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const outcomes: Receipt[] = [];
      for (let round = 0; round < 12; round += 1) outcomes.push(...(await Promise.all([0, 1, 2].map(() => shell('echo ran')))));
      // the calls are done: the flipper need not flip on for the rest of its 15 s
      await writeFile(join(project, 'stop'), '');
      const flipped = await flipping;
      expect(flipped, JSON.stringify(flipped)).toMatchObject({ ok: true });
      for (const outcome of outcomes) if (!outcome.ok) expect(outcome.code).toMatch(/^SANDBOX_(FAILED|UNAVAILABLE)$/);
      // where the race was won, bubblewrap made `.bin` here, as root
      expect(await readdir(outside)).toEqual([]);
    }, 90_000);
  }
});
