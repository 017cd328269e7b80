import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeViews, parseMountinfo, viewedAs } from '../../src/sandbox/home-views.js';
import { makeTempDir } from '../helpers/git.js';

// Review V, V5: the mount table only proposes where a home may be shown again; stat (st_dev, st_ino) decides.
// The bind mounts themselves are tested in home-bind-mount.test.ts (root, unshare -m).
let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir();
  await mkdir(join(temp.path, 'home', 'u', '.ssh'), { recursive: true });
  await mkdir(join(temp.path, 'elsewhere', 'u'), { recursive: true });
});
afterAll(() => temp?.cleanup());

describe('home views', () => {
  it('reads mountinfo paths with their escapes (a space is \\040)', () => {
    const mounts = parseMountinfo('26 1 254:0 / / rw - ext4 /dev/vda rw\n90 26 254:0 /home /srv/my\\040homes rw - ext4 /dev/vda rw\nnot a line\n');
    expect(mounts).toEqual([{ device: '254:0', root: '/', point: '/' }, { device: '254:0', root: '/home', point: '/srv/my homes' }]);
  });

  it('takes no view the mount table proposes that stat does not confirm (a mount hidden or gone)', () => {
    const home = join(temp.path, 'home', 'u');
    const mounts = [{ device: '254:0', root: '/', point: '/' }, { device: '254:0', root: join(temp.path, 'home'), point: join(temp.path, 'elsewhere') }];
    expect(homeViews([home], mounts)).toEqual([]);
  });

  it('names a path in the home\'s own spelling through a view it is inside or holds', () => {
    const views = [{ view: '/srv/homes/u', shows: '/home/u' }];
    expect(viewedAs('/srv/homes/u/.ssh', ['/home/u'], views)).toContainEqual({ path: '/home/u/.ssh', view: '/srv/homes/u', shows: '/home/u' });
    expect(viewedAs('/srv', ['/home/u'], views)).toContainEqual({ path: '/home/u', view: '/srv/homes/u', shows: '/home/u' });
    expect(viewedAs('/srv/other', ['/home/u'], views)).toEqual([]);
  });
});
