import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, open, readFile, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';
import { SERVE_ANNOUNCE } from '../helpers/serve-process.js';
import { describeNeeding, giveToNobody } from './support/bubblewrap.js';

// Review V, V3: every descriptor the gateway's parent left open across exec reached the sandboxed tool. With one on a
// host folder the sandbox never binds, a tool run as nobody listed and read that folder (`/proc/self/fd/N/..` walks
// the host's whole tree, past every bind); with one read-write on a root 0600 file, it wrote the file. Here the
// parent is this test: `hldp call` and `hldp serve` are started with two such descriptors, above 9 (which the usual
// /bin/sh, dash, cannot even name), and the tool lists what it has.

const PYTHON = '/usr/bin/python3';
const python = spawnSync(PYTHON, ['-c', 'print(1)'], { encoding: 'utf8' }).status === 0;

// the descriptors the gateway's parent leaves open, at these numbers in the gateway
const FILE_FD = 40;
const FOLDER_FD = 41;

// the tool's descriptors but its own listing's (closed once listed), then what it reached through the others
const PEEK = `
import os
fds = sorted(int(n) for n in os.listdir('/proc/self/fd') if os.path.exists('/proc/self/fd/' + n))
print('fds:', *fds)
for fd in fds[3:]:
    try:
        os.write(fd, b'written by the sandboxed tool\\n'); print(fd, 'written')
    except OSError:
        print(fd, 'listing:', sorted(os.listdir('/proc/self/fd/%d/..' % fd)))
`;

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let hostFile: string;
let hostFolder: string;
let env: NodeJS.ProcessEnv;

/** Starts `hldp ARGS` with the host file (read-write) and folder open at FILE_FD and FOLDER_FD, as a leaky parent would. */
async function leaky(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ child: ReturnType<typeof spawn>; close: () => Promise<void> }> {
  const handles: FileHandle[] = [await open(hostFile, 'r+'), await open(hostFolder, 'r')];
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe', ...Array.from({ length: FILE_FD - 3 }, () => 'ignore' as const), handles[0]!.fd, handles[1]!.fd];
  const child = track(spawn(process.execPath, [HLDP_BIN, ...args], { env: { ...process.env, ...env, ...extraEnv }, stdio }));
  return { child, close: async () => void (await Promise.all(handles.map((handle) => handle.close()))) };
}

/** `hldp call fd-peek --json` from a leaky parent: the receipt. */
async function call(extraEnv: NodeJS.ProcessEnv = {}): Promise<{ ok: boolean; output?: string; error?: string }> {
  const { child, close } = await leaky(['call', 'fd-peek', '--repo', repo, '--json'], extraEnv);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  await close();
  return JSON.parse(stdout) as { ok: boolean; output?: string };
}

describeNeeding([{ part: PYTHON, present: python, provided: '.ci/run installs python3 with apt-get when it is missing' }], 'descriptors the gateway inherited (review V, V3)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-inherited-fds-');
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    hostFolder = join(temp.path, 'host-folder');
    await mkdir(hostFolder);
    await writeFile(join(hostFolder, 'secret'), 'a host file the sandbox never binds\n');
    hostFile = join(temp.path, 'host-file');
    await writeFile(hostFile, '', { mode: 0o600 });
    repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/fd-peek/TOOL.hdlp': makeToolYaml('fd-peek', { executor: 'shell', method: 'run', shell: `{ argv: ${JSON.stringify([PYTHON, '-c', PEEK])} }` }) }, 'tools');
    await chmod(temp.path, 0o755);
    if (process.getuid?.() === 0) await giveToNobody(workspace);
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it('hldp call: the tool gets only 0, 1 and 2, and the host file is left as it was', async () => {
    const receipt = await call();
    expect(receipt).toMatchObject({ ok: true, output: 'fds: 0 1 2\n' });
    expect(await readFile(hostFile, 'utf8')).toBe('');
  });

  it('hldp call on the cold path (an environment no launcher\'s shell can export): the same', async () => {
    // LC_* names pass from the gateway's environment to the tool's; this one is no shell identifier
    const receipt = await call({ 'LC_NOT-AN-IDENTIFIER': '1' });
    expect(receipt).toMatchObject({ ok: true, output: 'fds: 0 1 2\n' });
    expect(await readFile(hostFile, 'utf8')).toBe('');
  });

  it('hldp serve: its tools, from launchers started ahead of them too, get only 0, 1 and 2', async () => {
    const { child, close } = await leaky(['serve', '--repo', repo, '--port', '0']);
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = SERVE_ANNOUNCE.exec(stderr);
          if (match) resolve(match[1]!);
        });
        child.once('exit', () => reject(new Error(`hldp serve exited before listening:\n${stderr}`)));
      });
      // the second call runs in a launcher started while the first ran, ahead of it
      for (let round = 0; round < 2; round += 1) {
        const response = await fetch(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'fd-peek', params: {} }) });
        expect(await response.json()).toMatchObject({ ok: true, output: 'fds: 0 1 2\n' });
      }
      expect(await readFile(hostFile, 'utf8')).toBe('');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      await close();
    }
  });
});
