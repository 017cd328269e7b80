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
function bwrapArgv(inner: string, command: string): string[] {
  const system = bubblewrap.system.flatMap((mount) => (mount.symlink === undefined ? ['--ro-bind', mount.path, mount.path] : ['--symlink', mount.symlink, mount.path]));
  return [bubblewrap.path, '--unshare-all', '--die-with-parent', ...system, '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', workspace, workspace, '--ro-bind', inner, join(workspace, 'node_modules', '.bin'), '--', '/bin/sh', '-c', command];
}

function run(argv: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
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
    expect(run(withHostReadOnly(bubblewrap.hostReadOnly, [workspace], argv))).toMatchObject({ status: 1, stderr: expect.stringContaining('Read-only file system') });
    expect(await readdir(outside)).toEqual([]);
    // the control: the same command line as bubblewrap was started before
    run(argv);
    expect(await readdir(outside)).toEqual(['.bin']);
  });

  it('leaves the run its workspace, its declared writable path, its own /tmp and /dev/null, as before', async () => {
    const declared = join(temp.path, 'declared');
    await mkdir(declared);
    await rm(join(workspace, 'node_modules'));
    await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true });
    const argv = bwrapArgv(join(workspace, 'bin'), `echo w > ${workspace}/w && echo d > ${declared}/d && echo t > /tmp/t && cat /tmp/t && echo n > /dev/null && ! touch /usr/x 2>/dev/null`);
    argv.splice(argv.indexOf('--'), 0, '--bind', declared, declared);
    expect(run(withHostReadOnly(bubblewrap.hostReadOnly, [workspace, declared], argv))).toMatchObject({ status: 0, stderr: '' });
    expect([await readFile(join(workspace, 'w'), 'utf8'), await readFile(join(declared, 'd'), 'utf8')]).toEqual(['w\n', 'd\n']);
  });

  it('keeps /proc and the outermost writable roots', () => {
    expect(writableRoots(['/w/ws', '/w/ws/a', '/srv/d', '/w/ws', '/w/wsx'])).toEqual(['/proc', '/srv/d', '/w/ws', '/w/wsx']);
  });
});
