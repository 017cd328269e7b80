import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeMountPath, mountCheckScript, mountPlan, parseMountinfo, type MountEntry } from '../../src/sandbox/mount-check.js';
import { runs } from '../helpers/property-runs.js';

// Review T (T1, T2): the run's first shell compares its /proc/self/mountinfo with what the gateway asked for. Paths
// in mountinfo are a tool's to choose (a folder named with spaces, tabs, newlines, backslashes, `'`, `*`, `$(…)`):
// neither the gateway's parser nor the shell's check may be led to take one mount for another.

const folder = mkdtempSync(join(tmpdir(), 'hldp-mount-check-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const line = (id: number, entry: MountEntry): string => `${id} 1 ${entry.device} ${escapeMountPath(entry.root)} ${escapeMountPath(entry.mountPoint)} rw,relatime - ext4 /dev/vda rw`;
const segment = fc.stringMatching(/^[a-z .\t\n\\'"*?$()[\]{}-]{1,6}$/).filter((name) => name !== '.' && name !== '..');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);

let files = 0;
/** What the shell's check says of `mountinfo` for `plan`: undefined when it passes. */
function shellCheck(plan: ReturnType<typeof mountPlan>, mountinfo: string): string | undefined {
  const file = join(folder, `m${(files += 1)}`);
  writeFileSync(file, mountinfo);
  try {
    execFileSync('/bin/sh', ['-c', `${mountCheckScript(plan, '', file)}\necho passed`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return undefined;
  } catch (error) {
    return String((error as { stderr: string }).stderr);
  }
}

describe('the mount check (review T)', () => {
  it('reads back every path a line holds, whatever its characters', () => {
    fc.assert(
      fc.property(path, path, (root, mountPoint) => {
        expect(parseMountinfo(`${line(7, { device: '8:1', root, mountPoint })}\n`)).toEqual([{ device: '8:1', root, mountPoint }]);
      }),
    );
  });

  it('passes the mounts asked for, and names the path whose mount is another folder, or missing, or an extra mount point', () => {
    const host: MountEntry[] = [{ device: '8:1', root: '/', mountPoint: '/' }];
    fc.assert(
      fc.property(path, path, fc.constantFrom('asked', 'swapped', 'missing', 'extra'), (workspaceName, inner, shape) => {
        const workspace = `/w${workspaceName}`;
        const pinned = `${workspace}${inner}`;
        const plan = mountPlan(['--proc', '/proc', '--bind', workspace, workspace, '--ro-bind', pinned, pinned, '--'], host);
        const mounts: MountEntry[] = [
          { device: '0:40', root: '/newroot', mountPoint: '/' },
          { device: '0:41', root: '/', mountPoint: '/proc' },
          { device: '0:41', root: '/irq', mountPoint: '/proc/irq' },
          { device: '8:1', root: workspace, mountPoint: workspace },
        ];
        // a swap: the pinned bind resolved, source and destination, to the workspace's parent
        if (shape === 'asked') mounts.push({ device: '8:1', root: pinned, mountPoint: pinned });
        if (shape === 'swapped') mounts.push({ device: '8:1', root: '/', mountPoint: pinned });
        if (shape === 'extra') mounts.push({ device: '8:1', root: pinned, mountPoint: pinned }, { device: '8:1', root: '/', mountPoint: `${workspace}/..x` });
        const said = shellCheck(plan, `${mounts.map((entry, index) => line(20 + index, entry)).join('\n')}\n`);
        if (shape === 'asked') expect(said).toBeUndefined();
        else {
          expect(said).toContain('hldp-sandbox: the sandbox is not the one the gateway asked for');
          expect(said).toContain(shape === 'extra' ? `something is mounted at ${escapeMountPath(`${workspace}/..x`)}` : `${pinned} is not mounted from ${pinned}`);
        }
      }),
      { numRuns: runs(60) },
    );
  });

  it('binds by descriptor: a writable one moved since it was opened passes on its device alone, a read-only one must be where judged', () => {
    // bubblewrap checked each against its descriptor by device and inode as it mounted it; a tool may have renamed
    // the writable folder since (its root in mountinfo is then the new name), which makes no difference to the run
    const host: MountEntry[] = [{ device: '8:1', root: '/', mountPoint: '/' }];
    fc.assert(
      fc.property(path, path, fc.constantFrom('asked', 'moved', 'moved read-only', 'other device', 'missing'), (workspaceName, inner, shape) => {
        const workspace = `/w${workspaceName}`;
        const pinned = `${workspace}${inner}`;
        const plan = mountPlan(['--proc', '/proc', '--bind-fd', '8', workspace, '--ro-bind-fd', '9', pinned, '--'], host, undefined, [workspace, pinned]);
        const mounts: MountEntry[] = [
          { device: '0:40', root: '/newroot', mountPoint: '/' },
          { device: '0:41', root: '/', mountPoint: '/proc' },
        ];
        if (shape !== 'missing') mounts.push({ device: shape === 'other device' ? '8:2' : '8:1', root: shape === 'moved' ? `${workspace}-judged` : workspace, mountPoint: workspace });
        mounts.push({ device: '8:1', root: shape === 'moved read-only' ? `${pinned}-judged` : pinned, mountPoint: pinned });
        const said = shellCheck(plan, `${mounts.map((entry, index) => line(20 + index, entry)).join('\n')}\n`);
        if (shape === 'asked' || shape === 'moved') expect(said).toBeUndefined();
        else {
          expect(said).toContain('hldp-sandbox: the sandbox is not the one the gateway asked for');
          expect(said).toContain(shape === 'moved read-only' ? `${pinned} is not mounted from ${pinned}` : `${workspace} is not mounted from device 8:1, the folder the gateway opened`);
        }
      }),
      { numRuns: runs(60) },
    );
  });

  it('takes a bind of a folder holding host mounts with them, and the mount on top where two share a mount point', () => {
    const host: MountEntry[] = [
      { device: '8:1', root: '/', mountPoint: '/' },
      { device: '8:1', root: '/var/lib/x/resolv.conf', mountPoint: '/etc/resolv.conf' },
      { device: '0:6', root: '/', mountPoint: '/dev' },
    ];
    const plan = mountPlan(['--ro-bind', '/etc', '/etc', '--ro-bind', '/dev/null', '/w/secret', '--bind-try', '/nowhere', '/nowhere', '--'], host);
    expect(plan.binds).toEqual([
      { path: '/etc', device: '8:1', root: '/etc', optional: false },
      { path: '/w/secret', device: '0:6', root: '/null', optional: false },
      { path: '/nowhere', device: '8:1', root: '/nowhere', optional: true },
    ]);
    expect(plan.allowed).toEqual(['/etc/resolv.conf']);
    const inside = [
      line(1, { device: '8:1', root: '/etc', mountPoint: '/etc' }),
      line(2, { device: '8:1', root: '/var/lib/x/resolv.conf', mountPoint: '/etc/resolv.conf' }),
      line(3, { device: '8:1', root: '/w', mountPoint: '/w/secret' }),
      line(4, { device: '0:6', root: '/null', mountPoint: '/w/secret' }),
    ];
    expect(shellCheck(plan, `${inside.join('\n')}\n`)).toBeUndefined();
    expect(shellCheck(plan, `${[inside[0], inside[1], inside[3], inside[2]].join('\n')}\n`)).toContain('/w/secret is not mounted from /null');
  });
});
