import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// The sandbox binds what a tool could swap by descriptor (`--bind-fd`, `--ro-bind-fd`), which bubblewrap knows from
// 0.8 on; Ubuntu 22.04 ships 0.6. A bubblewrap that refuses the option, as an older one does, is reproduced by a
// `bwrap` early on PATH that says what 0.6 says and runs the real one otherwise: the gateway must bind by path there.
let temp: { path: string; cleanup: () => Promise<void> };
let service: ServiceProcess | undefined;

/** A `bwrap` that refuses the options bubblewrap 0.8 added, and runs `real` otherwise. */
const oldBubblewrap = (real: string): string => [
  '#!/bin/sh',
  'for arg in "$@"; do',
  '  case $arg in --bind-fd|--ro-bind-fd) echo "bwrap: Unknown option $arg" >&2; exit 1;; --) break;; esac',
  'done',
  `exec ${real} "$@"`,
].join('\n');

describeWithBubblewrap('a bubblewrap older than 0.8, which binds by path only', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-old-bwrap-');
    await chmod(temp.path, 0o755);
    await writeFiles(join(temp.path, 'repo'), {
      'tools/sh/TOOL.hdlp': makeToolYaml('sh', { executor: 'shell', method: 'run', params_schema: '{ cmd: { type: string, required: true } }', shell: '{ script: "eval \\"$HLDP_PARAM_CMD\\"" }' }),
    });
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await temp.cleanup();
  });

  it('runs every call in the sandbox all the same, its binds by path', async () => {
    const bin = join(temp.path, 'bin');
    const workspace = join(temp.path, 'ws');
    await mkdir(bin);
    await mkdir(workspace);
    await writeFile(join(bin, 'bwrap'), oldBubblewrap(execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim()));
    await chmod(join(bin, 'bwrap'), 0o755);
    const path = `${bin}:${process.env.PATH}`;
    service = await spawnService(
      ['serve', '--port', '0', '--repo', join(temp.path, 'repo')],
      { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root', PATH: path, HLDP_HOST_PATH: path },
      / at (http:\/\/[\d.:]+)\n/,
    );
    // twice: the second is a launcher that waited
    for (let call = 0; call < 2; call += 1) {
      const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: `echo ${call} >> out; cat /proc/self/mountinfo | grep -c ' ${workspace} '` } } })).json;
      expect(receipt).toMatchObject({ ok: true, output: '1\n' });
    }
    expect(await readFile(join(workspace, 'out'), 'utf8')).toBe('0\n1\n');
  });
});
