import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAs } from '../../src/sandbox/run-as.js';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// sandbox.run_as as the operator writes it, read against a passwd file of our own
let temp: { path: string; cleanup: () => Promise<void> };
let passwd: string;

beforeAll(async () => {
  temp = await makeTempDir();
  passwd = join(temp.path, 'passwd');
  await writeFile(passwd, 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\nbuilder:x:1500:1600::/home/builder:/bin/sh\noperator:x:11:0:operator:/root:/sbin/nologin\n');
});
afterAll(async () => {
  await temp?.cleanup();
});

describe('resolveRunAs', () => {
  it.each([
    ['left out', undefined, { uid: 65534, gid: 65534, name: 'nobody', home: '/nonexistent' }],
    // with the home its passwd entry gives, which the sandbox guards as every home (review U, U2)
    ['a user of the host', 'builder', { uid: 1500, gid: 1600, name: 'builder', home: '/home/builder' }],
    ['numbers', { uid: 4321, gid: 4322 }, { uid: 4321, gid: 4322 }],
    ['numbers of a user of the host', { uid: 1500, gid: 1500 }, { uid: 1500, gid: 1500, home: '/home/builder' }],
    ['a uid as text (HLDP_SANDBOX_RUN_AS)', '4321', { uid: 4321, gid: 4321 }],
    ['root by name', 'root', undefined],
    ['uid 0', { uid: 0, gid: 0 }, undefined],
    ['uid 0 as text', '0', undefined],
  ] as const)('when it is %s, returns whom tools run as (none: root)', (_case, setting, expected) => {
    expect(resolveRunAs(setting as Parameters<typeof resolveRunAs>[0], passwd)).toEqual(expected);
  });

  it('falls back to 65534 where the host has no nobody', () => {
    expect(resolveRunAs(undefined, join(temp.path, 'no-such-passwd'))).toEqual({ uid: 65534, gid: 65534, name: 'nobody' });
  });

  // review O, addendum: {uid: N, gid: 0} was taken, and tools ran in the group root, reading its files
  it.each([
    ['numbers with gid 0', { uid: 4321, gid: 0 }, /sandbox.run_as gives gid 0, the group root: tools would run as uid 4321, gid 0 and read every file the group root may read; give a gid of its own \(e.g. \{uid: 4321, gid: 4321\}\), or run_as: root/],
    ['a user whose primary group is root', 'operator', /sandbox.run_as names the user 'operator', whose primary group is root \(gid 0\)/],
  ] as const)('refuses %s, naming the fix', (_case, setting, message) => {
    expect(() => resolveRunAs(setting, passwd)).toThrow(message);
  });

  it('throws naming the fix for a user the host does not have', () => {
    expect(() => resolveRunAs('ghost', passwd)).toThrow(/sandbox.run_as names the user 'ghost', who is not in .*passwd: name a user of this host, or give \{uid, gid\}/);
  });
});

describe('a config whose run_as is in the group root', () => {
  it('is refused when it is read, before anything runs', async () => {
    const config = join(temp.path, 'gid0.yaml');
    await writeFile(config, 'sandbox: { mode: off, run_as: { uid: 4321, gid: 0 } }\n');
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
    const run = await runCli(['call', 'anything', '--config', config, '--repo', temp.path], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/sandbox.run_as: gives gid 0, the group root/);
  });
});
