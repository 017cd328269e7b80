import { access, chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DeclaredSandbox } from '../../src/core/index.js';
import { minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { git, makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap, giveToNobody } from './support/bubblewrap.js';

// Review K: a TOOL.hdlp is written by anyone with push access, and an agent's shell-exec writes what the workspace
// holds. Neither may reach what the gateway, a person or CI runs on the host, outside the sandbox.

let temp: { path: string; cleanup: () => Promise<void> };
let workspace: string;
let pathFolder: string;
let repository: string;
let sandbox: Sandbox;
let savedPath: string | undefined;
const exists = (path: string) => access(path).then(() => true, () => false);

// an environment no shell can export sends a run down the cold path (bubblewrap spawned for it), else a waiting launcher takes it
function sh(script: string, declared: DeclaredSandbox = {}, warm = true, where = workspace): ProcessSpec {
  // the tool's own PATH is the system's: what the test checks is which programs the gateway runs on the host
  const env = minimalEnvironment(warm ? { PATH: savedPath! } : { PATH: savedPath!, 'NOT-AN-IDENTIFIER': '1' });
  return { file: 'sh', args: ['-c', script], cwd: where, env, timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace: where, declared } };
}

describeWithBubblewrap('what no tool may reach on the host', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    workspace = join(temp.path, 'project');
    repository = join(temp.path, 'tools-repository');
    // a project's node_modules/.bin, first on the gateway's PATH, as `npx hldp serve` run in the project puts it
    pathFolder = join(workspace, 'node_modules', '.bin');
    await mkdir(pathFolder, { recursive: true });
    await mkdir(repository);
    await git(workspace, 'init', '-q');
    // what an earlier run could have planted there: were the gateway to run these on the host, they would leave a mark
    for (const program of ['sh', 'bwrap', 'prlimit', 'unshare', 'setpriv']) {
      await writeFile(join(pathFolder, program), `#!/bin/sh\necho planted > ${join(temp.path, `planted-${program}-ran`)}\n`);
      await chmod(join(pathFolder, program), 0o755);
    }
    savedPath = process.env.PATH;
    process.env.PATH = `${pathFolder}${delimiter}${process.env.PATH}`;
    sandbox = await createSandbox({ mode: 'auto', protect: [repository] });
    // a root gateway runs tools as nobody (sandbox.run_as): what they write is the operator's to give them, as the
    // README says (the gateway gives only a root-owned workspace folder itself, not what it holds)
    if (process.getuid?.() === 0) {
      await chmod(temp.path, 0o755);
      await giveToNobody(workspace);
    }
  });
  afterAll(async () => {
    process.env.PATH = savedPath;
    sandbox?.close();
    await temp?.cleanup();
  });

  for (const warm of [false, true]) {
    it(`runs no program of a PATH folder tools can write on the host, and shows that folder read-only (${warm ? 'waiting launcher' : 'cold start'})`, async () => {
      const result = await runProcess(sh(`echo planted-by-tool > ${pathFolder}/sh-${warm}; echo ran`, {}, warm));
      expect(result).toMatchObject({ ok: true, output: 'ran\n' });
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(await exists(join(pathFolder, `sh-${warm}`))).toBe(false);
      for (const program of ['sh', 'bwrap', 'prlimit', 'unshare', 'setpriv']) expect(await exists(join(temp.path, `planted-${program}-ran`))).toBe(false);
    });
  }

  it('refuses declarations of the host’s own paths, and nothing is written', async () => {
    const marker = `hldp-host-path-${process.pid}`;
    const declarations: [DeclaredSandbox, RegExp][] = [
      [{ filesystem: { write: ['/etc'] } }, /inside the system folder \/etc|holds the system folder \/etc/],
      [{ filesystem: { write: ['/usr/local/bin'] } }, /system folder \/usr/],
      [{ filesystem: { write: ['/'] } }, /the host's whole file system/],
      [{ filesystem: { read: ['/'] } }, /the host's whole file system/],
      [{ filesystem: { read: ['/proc'] } }, /the host's \/proc/],
      [{ filesystem: { read: ['/run'] } }, /the host's \/run/],
      // a PATH folder in the home folder (~/.cargo/bin) may be named first
      [{ filesystem: { write: ['~'] } }, /home folder|holds the system folder/],
      [{ filesystem: { write: ['~/.ssh'] } }, /dot-entry of the home folder|holds the system folder/],
      [{ filesystem: { write: ['/opt'] } }, /system folder \/opt/],
      [{ filesystem: { write: ['node_modules'] } }, /holds the system folder .*node_modules\/\.bin/],
    ];
    for (const warm of [false, true]) {
      for (const [declared, reason] of declarations) {
        const result = await runProcess(sh(`touch /etc/${marker} ~/.ssh/${marker} 2>/dev/null; echo ran`, declared, warm));
        expect(result, JSON.stringify(declared)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
        expect(result.error).toMatch(reason);
      }
    }
    expect(await exists(`/etc/${marker}`)).toBe(false);
    expect(await exists(join(homedir(), '.ssh', marker))).toBe(false);
  });

  it('refuses a definition’s read of the home folder’s dot-entries unless the operator’s ceiling lists them (review P, P14)', async () => {
    // a key where a user keeps keys: a pushed definition declaring it read printed it (and with network: true could send it)
    const keys = join(homedir(), `.hldp-p14-${process.pid}`);
    await mkdir(keys, { recursive: true, mode: 0o755 });
    try {
      await writeFile(join(keys, 'id_test'), 'FAKE-PRIVATE-KEY\n', { mode: 0o644 });
      for (const declared of [keys, join(keys, 'id_test'), homedir()]) {
        const result = await runProcess(sh(`cat ${join(keys, 'id_test')}`, { filesystem: { read: [declared] } }));
        expect(result, declared).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
        expect(result.error).toMatch(/home folder .*only where the operator lists it in sandbox\.ceiling\.readable_roots/);
      }
      const allowing = await createSandbox({ mode: 'auto', protect: [repository], ceiling: { readableRoots: [keys] } });
      try {
        const spec = sh(`cat ${join(keys, 'id_test')}`, { filesystem: { read: [keys] } });
        const result = await runProcess({ ...spec, isolation: { ...spec.isolation!, sandbox: allowing } });
        expect(result).toMatchObject({ ok: true, output: 'FAKE-PRIVATE-KEY\n' });
      } finally {
        allowing.close();
      }
    } finally {
      await rm(keys, { recursive: true, force: true });
    }
  });

  it('still grants a declared path of the workspace or of a project folder (in the host\'s /tmp, where the operator lists it)', async () => {
    const out = join(temp.path, 'shared-out');
    await mkdir(out);
    if (process.getuid?.() === 0) await giveToNobody(out);
    const allowing = await createSandbox({ mode: 'auto', protect: [repository], ceiling: { writableRoots: [out] } });
    try {
      const spec = sh(`echo made > ${join(out, 'a')} && echo ok`, { filesystem: { write: [out], read: ['/usr/share'] } });
      const result = await runProcess({ ...spec, isolation: { ...spec.isolation!, sandbox: allowing } });
      expect(result).toMatchObject({ ok: true, output: 'ok\n' });
    } finally {
      allowing.close();
    }
  });

  // review T, T4: the user's programs keep their unix sockets in the host's /tmp (tmux, ssh-agent), and a read-only bind
  // does not stop a connect(2): a definition declaring /tmp typed a command into the user's tmux, which ran on the host
  it('refuses a definition that declares the host\'s /tmp or /var/tmp, a folder in them or one holding them, to read or to write, unless the operator lists it', async () => {
    const sockets = join(temp.path, 'tmux-sockets');
    await mkdir(sockets);
    await writeFile(join(sockets, 'default'), 'SOCKET-STAND-IN\n', { mode: 0o644 });
    const declarations: Array<[DeclaredSandbox, RegExp]> = [
      [{ filesystem: { read: ['/tmp'] } }, /filesystem\.read '\/tmp', the host's shared \/tmp, where the user's programs keep their unix sockets .*sandbox\.ceiling\.readable_roots/],
      [{ filesystem: { read: [sockets] } }, /inside the host's shared \/tmp, .*sandbox\.ceiling\.readable_roots/],
      [{ filesystem: { read: ['/var/tmp'] } }, /the host's shared \/var\/tmp/],
      [{ filesystem: { write: [sockets] } }, /inside the host's shared \/tmp, .*sandbox\.ceiling\.writable_roots/],
    ];
    for (const [declared, reason] of declarations) {
      const result = await runProcess(sh(`cat ${join(sockets, 'default')}; echo ran`, declared));
      expect(result, JSON.stringify(declared)).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(result.error).toMatch(reason);
    }
    // listed by the operator, it is theirs to give (and a run's own /tmp needs no declaration)
    const allowing = await createSandbox({ mode: 'auto', protect: [repository], ceiling: { readableRoots: [sockets] } });
    try {
      const spec = sh(`cat ${join(sockets, 'default')}; echo private > /tmp/own && cat /tmp/own`, { filesystem: { read: [sockets] } });
      const result = await runProcess({ ...spec, isolation: { ...spec.isolation!, sandbox: allowing } });
      expect(result).toMatchObject({ ok: true, output: 'SOCKET-STAND-IN\nprivate\n' });
    } finally {
      allowing.close();
    }
  });

  it('runs no local tool in a workspace of / (a service started where systemd starts it) or in the tools repository', async () => {
    for (const where of ['/', repository]) {
      const result = await runProcess(sh('touch /etc/hldp-workspace-root; echo ran', {}, true, where));
      expect(result).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(result.error).toMatch(/set workspace_root \(or HLDP_WORKSPACE\)/);
    }
    expect(await exists('/etc/hldp-workspace-root')).toBe(false);
  });

  it('keeps a workspace repository’s hooks and config read-only, and lets tools commit', async () => {
    const script = [
      `printf '#!/bin/sh\\necho hook > ${join(temp.path, 'hook-ran')}\\n' > .git/hooks/post-checkout 2>/dev/null || echo hooks-refused`,
      'git config core.fsmonitor "touch /tmp/x" 2>/dev/null || echo config-refused',
      'echo a > file && git add file && git -c user.name=t -c user.email=t@e commit -qm one && echo committed',
    ].join('; ');
    const result = await runProcess(sh(script));
    expect(result.output).toBe('hooks-refused\nconfig-refused\ncommitted\n');
    expect(await exists(join(workspace, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });
});
