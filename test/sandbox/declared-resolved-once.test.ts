import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Review M, M3: a declared path was resolved once for sandbox.ceiling and again for the binds, so a symlink in the
// workspace that a tool flips between an allowed and a forbidden folder passed the ceiling at one resolution and was
// bound at the other (2 of 300 calls read the forbidden folder). Every resolution of the symlink is counted here: a
// launch must judge and bind the one real path it resolved once.
const resolved = vi.hoisted(() => ({ paths: [] as string[] }));
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  const realpathSync = Object.assign((path: Parameters<typeof real.realpathSync>[0], options?: Parameters<typeof real.realpathSync>[1]) => {
    resolved.paths.push(String(path));
    return real.realpathSync(path, options);
  }, { native: real.realpathSync.native });
  return { ...real, default: { ...real, realpathSync }, realpathSync };
});

const { createSandbox } = await import('../../src/sandbox/index.js');

let temp: { path: string; cleanup: () => Promise<void> };
let sandbox: Awaited<ReturnType<typeof createSandbox>>;
let workspace: string;
let allowed: string;

describeWithBubblewrap('a declared path under sandbox.ceiling', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    workspace = join(temp.path, 'workspace');
    allowed = join(temp.path, 'allowed');
    await mkdir(workspace);
    await mkdir(allowed);
    await writeFile(join(allowed, 'data'), 'allowed-data');
    await symlink(allowed, join(workspace, 'lnk'));
    sandbox = await createSandbox({ mode: 'auto', limits: false, ceiling: { readableRoots: [allowed] } });
  });
  afterAll(async () => {
    await sandbox?.close();
    await temp?.cleanup();
  });

  for (const warm of [false, true]) {
    it(`is resolved once a launch, and that real path is what the ceiling judges and the sandbox binds (${warm ? 'waiting launcher' : 'cold start'})`, async () => {
      resolved.paths.length = 0;
      const launch = await sandbox.launch({ file: 'cat', args: ['lnk/data'], cwd: workspace, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, workspace, declared: { filesystem: { read: ['lnk'] } }, warm });
      expect(launch.ok).toBe(true);
      expect(resolved.paths.filter((path) => path === join(workspace, 'lnk'))).toHaveLength(1);
      if (launch.ok && !warm) expect(launch.plan.args).toContain(allowed);
      if (launch.ok) await launch.plan.finish?.({ exitCode: 0, signal: null, stderr: '', stopped: false } as never).catch(() => undefined);
    });
  }
});
