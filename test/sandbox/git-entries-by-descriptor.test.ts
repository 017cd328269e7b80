import { chown, mkdir, readFile, readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeOwnedAs } from '../../src/sandbox/git-folder.js';
import { makeTempDir } from '../helpers/git.js';

// Review T, T3: a root gateway made a git folder's missing control entries by path. A tool that swapped its own folder
// (holding a `.git`) for a symbolic link to another repository between the launch's walk and the write had root make
// `commondir` and `config.worktree` in that repository, outside the workspace — and the same path's lchown could have
// given the tool's owner a root repository's `hooks`. Now the entries are made by descriptor, from folders opened a
// component at a time without following a link: a link on the way makes nothing.
describe('making a git folder\'s missing control entries', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let victim: string;
  let workspace: string;
  beforeEach(async () => {
    temp = await makeTempDir('hldp-git-entries-');
    victim = join(temp.path, 'victim', '.git');
    workspace = join(temp.path, 'ws');
    await mkdir(victim, { recursive: true });
    await mkdir(workspace);
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  describe('when a folder on the way is a symbolic link (a tool swapped its folder for one)', () => {
    it('makes nothing, where the link points or anywhere, and says a link was met', async () => {
      // the walk saw ws/a/.git, a real git folder; now ws/a is a link to the victim's checkout
      await symlink(join(temp.path, 'victim'), join(workspace, 'a'));
      const gitFolder = join(workspace, 'a', '.git');
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'commondir'), false, '.\n')).toBe('linked');
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'config.worktree'), false, '')).toBe('linked');
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'hooks'), true, '')).toBe('linked');
      expect(await readdir(victim)).toEqual([]);
    });

    it('makes nothing through a link that is the entry itself', async () => {
      const gitFolder = join(workspace, '.git');
      await mkdir(gitFolder);
      await symlink(join(victim, 'hooks'), join(gitFolder, 'hooks'));
      await symlink(join(victim, 'commondir'), join(gitFolder, 'commondir'));
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'hooks'), true, '')).toBe('failed');
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'commondir'), false, '.\n')).not.toBe('made');
      expect(await readdir(victim)).toEqual([]);
    });
  });

  describe('when every folder on the way is a real one', () => {
    it('makes the entry with its text, owned as the git folder is when the gateway is root', async () => {
      const gitFolder = join(workspace, '.git');
      await mkdir(gitFolder);
      if (process.getuid?.() === 0) await chown(gitFolder, 1000, 1000);
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'commondir'), false, '.\n')).toBe('made');
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'hooks'), true, '')).toBe('made');
      expect(await readFile(join(gitFolder, 'commondir'), 'utf8')).toBe('.\n');
      const owner = process.getuid?.() === 0 ? { uid: 1000, gid: 1000 } : { uid: process.getuid?.(), gid: process.getgid?.() };
      for (const [name, mode] of [['commondir', 0o644], ['hooks', 0o755]] as const) {
        const info = await stat(join(gitFolder, name));
        expect({ name, uid: info.uid, gid: info.gid, mode: info.mode & 0o777 & ~process.umask() }).toEqual({ name, ...owner, mode: mode & ~process.umask() });
      }
      // made once: a second time finds it there
      expect(makeOwnedAs(gitFolder, join(gitFolder, 'commondir'), false, 'other\n')).toBe('failed');
      expect(await readFile(join(gitFolder, 'commondir'), 'utf8')).toBe('.\n');
    });
  });
});
