import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { probeBubblewrap, type Bubblewrap } from '../../src/sandbox/bubblewrap.js';
import { withHostReadOnly, writableRoots } from '../../src/sandbox/host-read-only.js';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// The mechanism behind test/sandbox/setup-writes-host.test.ts, without its race: bubblewrap's command line as the
// gateway builds it (the workspace bound, then a folder inside it bound again on top, as a PATH folder or a pinned git
// folder is) meets a folder on the way that is already the tool's link to `…/oldroot/<host folder>`. bubblewrap alone
// makes the destination there, on the host (the control: that is what a won race did); started as the gateway starts
// it now, the host is read-only to its setup, so it makes nothing and the run fails. A real bubblewrap, a real host.

let temp: { path: string; cleanup: () => Promise<void> };
let workspace: string;
let outside: string;
let bubblewrap: Extract<Bubblewrap, { ok: true }>;

beforeAll(async () => {
  const probed = await probeBubblewrap();
  if (probed.ok) bubblewrap = probed;
});

/** bubblewrap's arguments for a run in `workspace` that binds `inner` (inside it) read-only on top, and `command`. */
function bwrapArgv(inner: string, command: string, systemOnly = false): string[] {
  // the system folders alone (a PATH folder of root's home is no one else's to bind)
  const mounts = bubblewrap.system.filter((mount) => !systemOnly || /^\/(usr|etc|bin|sbin|lib\w*)(\/|$)/.test(mount.path));
  const system = mounts.flatMap((mount) => (mount.symlink === undefined ? ['--ro-bind', mount.path, mount.path] : ['--symlink', mount.symlink, mount.path]));
  return [bubblewrap.path, '--unshare-all', '--die-with-parent', ...system, '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', workspace, workspace, '--ro-bind', inner, join(workspace, 'node_modules', '.bin'), '--', '/bin/sh', '-c', command];
}

/** `argv` run as this process's user, or, `asNobody` where that is root, as a gateway that is not root (nobody). */
function run(argv: string[], asNobody = false): { status: number | null; stderr: string } {
  const command = asNobody && process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv] : argv;
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  return { status: result.status, stderr: result.stderr };
}

describeWithBubblewrap("bubblewrap's setup, started where the host is read-only", () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-host-read-only-');
    workspace = join(temp.path, 'ws');
    outside = join(temp.path, 'outside');
    await mkdir(join(workspace, 'bin'), { recursive: true });
    await mkdir(outside);
    await chmod(temp.path, 0o755);
    // the folder on the way, swapped: as many `..` as any depth needs, then the host's root as the setup sees it
    await symlink(`${'../'.repeat(40)}oldroot${outside}`, join(workspace, 'node_modules'));
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('is what this host gives the gateway', () => {
    expect(bubblewrap.hostReadOnly).toEqual({ ok: true, prefix: expect.any(Array) });
  });

  it('makes nothing on the host through a link to /oldroot; bubblewrap alone makes the folder there', async () => {
    const argv = bwrapArgv(join(workspace, 'bin'), 'true');
    expect(run(withHostReadOnly(bubblewrap.hostReadOnly, { args: argv.slice(1), sources: [] }, argv))).toMatchObject({ status: 1, stderr: expect.stringContaining('Read-only file system') });
    expect(await readdir(outside)).toEqual([]);
    // the control: the same command line as bubblewrap was started before
    run(argv);
    expect(await readdir(outside)).toEqual(['.bin']);
  });

  it('as a gateway that is not root: the same, in a user namespace of its own', async () => {
    // what a gateway running as nobody may write: its workspace, and the host folder the link names
    await chmod(workspace, 0o777);
    await chmod(outside, 0o777);
    const argv = bwrapArgv(join(workspace, 'bin'), 'true', true);
    expect(run(withHostReadOnly(bubblewrap.hostReadOnly, { args: argv.slice(1), sources: [] }, argv), true)).toMatchObject({ status: 1, stderr: expect.stringContaining('Read-only file system') });
    expect(await readdir(outside)).toEqual([]);
    run(argv, true);
    expect(await readdir(outside)).toEqual(['.bin']);
  });

  it('leaves the run its workspace, its declared writable path, its own /tmp and /dev/null, as before', async () => {
    const declared = join(temp.path, 'declared');
    await mkdir(declared);
    await rm(join(workspace, 'node_modules'));
    await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true });
    const argv = bwrapArgv(join(workspace, 'bin'), `echo w > ${workspace}/w && echo d > ${declared}/d && echo t > /tmp/t && cat /tmp/t && echo n > /dev/null && ! touch /usr/x 2>/dev/null`);
    argv.splice(argv.indexOf('--'), 0, '--bind', declared, declared);
    expect(run(withHostReadOnly(bubblewrap.hostReadOnly, { args: argv.slice(1), sources: [] }, argv))).toMatchObject({ status: 0, stderr: '' });
    expect([await readFile(join(workspace, 'w'), 'utf8'), await readFile(join(declared, 'd'), 'utf8')]).toEqual(['w\n', 'd\n']);
  });

  it('keeps /proc and the outermost writable roots, by descriptor where bound by one', () => {
    const args = ['--ro-bind', '/usr', '/usr', '--bind-fd', '8', '/w/ws', '--bind', '/w/ws/a', '/w/ws/a', '--ro-bind-fd', '9', '/r', '--bind-fd', '10', '/srv/d', '--bind-try', '/w/ws', '/w/ws', '--bind', '/w/wsx', '/w/wsx', '--', '--bind', '/x', '/x'];
    expect(writableRoots(args, ['/w/ws', '/r', '/srv/d'])).toEqual(['/proc', 'fd:8', 'fd:10', '/w/wsx']);
    expect(() => writableRoots(['--bind-fd', '9', '/w'], ['/w'])).toThrow(/names no source/);
  });
});
