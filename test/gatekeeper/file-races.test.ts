import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInsideRoot, resolveInsideRoot } from '../../src/executors/index.js';
import { startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';

let base: string;
let root: string;
let outside: string;
let gatekeeper: RunningGatekeeper;

async function post(body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatekeeper.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gatekeeper.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'hldp-races-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'd'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'd', 'a.txt'), 'inside\n');
  await writeFile(join(outside, 'a.txt'), 'SECRET outside\n');
  execFileSync('mkfifo', [join(root, 'fifo')]);
  gatekeeper = await startGatekeeper({ root });
});
afterAll(async () => {
  await gatekeeper.close();
  await rm(base, { recursive: true, force: true });
});

// what a second writer in the root can do between the check of a path and its use
async function swapFolderForSymlink(): Promise<() => Promise<void>> {
  await rename(join(root, 'd'), join(root, 'd-aside'));
  await symlink(outside, join(root, 'd'));
  return async () => {
    await rm(join(root, 'd'));
    await rename(join(root, 'd-aside'), join(root, 'd'));
  };
}

describe('openInsideRoot', () => {
  describe('when a folder on the way became a symlink out of the root after the check', () => {
    it('refuses to read through it', async () => {
      const resolved = await resolveInsideRoot(root, 'd/a.txt');
      if (!resolved.ok) throw new Error(resolved.message);
      const restore = await swapFolderForSymlink();
      try {
        await expect(openInsideRoot(resolved.root, resolved.path, { flags: constants.O_RDONLY })).rejects.toMatchObject({ code: 'ELOOP' });
      } finally {
        await restore();
      }
    });

    it('refuses to create a file or folder through it', async () => {
      const resolved = await resolveInsideRoot(root, 'd/sub/new.txt', { allowMissing: true });
      if (!resolved.ok) throw new Error(resolved.message);
      const restore = await swapFolderForSymlink();
      try {
        const flags = constants.O_WRONLY | constants.O_CREAT;
        await expect(openInsideRoot(resolved.root, resolved.path, { flags, mode: 0o644, createDirs: true })).rejects.toMatchObject({ code: 'ELOOP' });
      } finally {
        await restore();
      }
      expect(await readdir(outside)).toEqual(['a.txt']);
    });
  });

  describe('when nothing changed', () => {
    it('opens the file and creates missing folders inside the root', async () => {
      const resolved = await resolveInsideRoot(root, 'made/deeper/new.txt', { allowMissing: true });
      if (!resolved.ok) throw new Error(resolved.message);
      const handle = await openInsideRoot(resolved.root, resolved.path, { flags: constants.O_WRONLY | constants.O_CREAT, mode: 0o644, createDirs: true });
      await handle.writeFile('made\n');
      await handle.close();
      expect(await readFile(join(root, 'made', 'deeper', 'new.txt'), 'utf8')).toBe('made\n');
    });
  });
});

describe('gatekeeper file methods on a FIFO', () => {
  it('read_file answers at once that it is not a regular file', async () => {
    expect(await post({ method: 'read_file', params: { path: 'fifo' }, timeout_ms: 1000 })).toMatchObject({ ok: false, code: 'IO_ERROR', error: "'fifo' is not a regular file" });
  });

  it('write_file answers at once instead of waiting for a reader, and blocks no other call', async () => {
    const writes = await Promise.all(Array.from({ length: 6 }, () => post({ method: 'write_file', params: { path: 'fifo', content: 'x' }, timeout_ms: 1000 })));
    for (const write of writes) expect(write).toMatchObject({ ok: false, code: 'IO_ERROR' });
    expect(await post({ method: 'read_file', params: { path: 'd/a.txt' } })).toMatchObject({ ok: true, output: 'inside\n' });
  });
});
