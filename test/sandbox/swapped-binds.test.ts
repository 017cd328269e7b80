import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Review T (T1, T2): bubblewrap resolves each bind's source and destination by path when it mounts, following
// symlinks; a tool that can write the workspace swapped a folder the gateway had judged (a PATH folder at the probe,
// a pinned git folder at the launch's walk) for a relative symlink, and the real home was bound in the sandbox. Each
// case is a running `hldp serve` called over HTTP with the starter shell-exec, as an agent calls it, with HOME faked.

let temp: { path: string; cleanup: () => Promise<void> };
let home: string;
let project: string;
let serve: ServiceProcess | undefined;

interface Receipt {
  ok: boolean;
  code: string | null;
  output: string;
  error: string | null;
}

async function shell(cmd: string): Promise<Receipt> {
  const response = await fetch(`${serve!.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'shell-exec', params: { cmd } }) });
  return (await response.json()) as Receipt;
}

describeWithBubblewrap('a folder the gateway binds, swapped for a symlink by a tool (review T)', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-swapped-binds-');
    home = join(temp.path, 'home');
    project = join(home, 'proj');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-OF-THE-GATEWAY-USER\n');
    await writeFile(join(home, '.bashrc'), '# bashrc\n');
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await chmod(temp.path, 0o755);
  });
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
    await temp.cleanup();
  });

  const start = async (path: string): Promise<void> => {
    const env = { HOME: home, PATH: path, HLDP_WORKSPACE: project, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root' };
    serve = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
  };

  it('T1: a PATH folder in the workspace made a link to the home: the next calls read nothing of the home, and say which path', async () => {
    // `npx hldp serve` in a project puts its node_modules/.bin on the gateway's PATH
    await start(`${join(project, 'node_modules', '.bin')}:${process.env.PATH}`);
    expect(await shell('cat ../.ssh/id_ed25519')).toMatchObject({ ok: false, code: 'NONZERO_EXIT' });
    expect(await shell('mv node_modules nm0 && mkdir node_modules && ln -s ../.. node_modules/.bin')).toMatchObject({ ok: true });
    // twice: the first may be a launcher that was waiting before the plant
    for (let call = 0; call < 2; call += 1) {
      const after = await shell(`cat ${join(home, '.ssh', 'id_ed25519')}; echo planted >> ${join(home, '.bashrc')}`);
      expect(after.output).not.toContain('PRIVATE-KEY');
      expect(after).toMatchObject({ ok: false, code: expect.stringMatching(/^SANDBOX_(FAILED|UNAVAILABLE)$/) });
      expect(after.error).toContain(join(project, 'node_modules', '.bin'));
    }
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe('# bashrc\n');
  });

  it('T2: a pinned git folder flipped to `..` while calls launch: no call writes the home or reads its key', async () => {
    execFileSync('git', ['init', '-q', project]);
    await start(process.env.PATH ?? '/usr/bin:/bin');
    // the flipper: `a` (holding a git repository two deep) and a symlink to the workspace's parent, exchanged atomically
    const flip = [
      'import ctypes, os, time',
      'libc = ctypes.CDLL(None, use_errno=True)',
      "for d in ['a/proj/.git/objects', 'a/proj/.git/refs/heads']: os.makedirs(d, exist_ok=True)",
      "open('a/proj/.git/HEAD', 'w').write('ref: refs/heads/main\\n')",
      "os.symlink('..', 'b')",
      'end = time.time() + 12; n = 0',
      'while time.time() < end:',
      "    libc.renameat2(-100, b'a', -100, b'b', 2); n += 1",
      '    if n % 64 == 0: time.sleep(0.0005)',
      "if os.path.islink('a'): libc.renameat2(-100, b'a', -100, b'b', 2)",
    ].join('\n');
    await writeFile(join(project, 'flip.py'), flip);
    const flipping = shell('python3 flip.py');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const outcomes: Receipt[] = [];
    for (let round = 0; round < 10; round += 1) {
      outcomes.push(...(await Promise.all([0, 1, 2].map((index) => shell(`echo 'echo PWNED-${round}-${index}' >> ${join(home, '.bashrc')} && echo WROTE; cat ${join(home, '.ssh', 'id_ed25519')} 2>/dev/null`)))));
    }
    await flipping;
    for (const outcome of outcomes) {
      expect(outcome.output).not.toContain('PRIVATE-KEY');
      if (!outcome.ok && outcome.code !== 'NONZERO_EXIT') expect(outcome.code).toMatch(/^SANDBOX_(FAILED|UNAVAILABLE)$/);
    }
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe('# bashrc\n');
  });
});
