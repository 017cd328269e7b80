import { spawnSync } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, giveToNobody } from './support/bubblewrap.js';

// Review W, W3: a sandboxed tool made user namespaces. `unshare -Ur` gave it uid 0 with every capability in a new
// one, which opens kernel code an unprivileged process never reaches (nf_tables, overlayfs mounts, most local-root
// bugs of late). The seccomp program now refuses `unshare` and `clone` with a namespace flag (EPERM) and `clone3`
// (ENOSYS, which glibc's pthread_create and posix_spawn answer by falling back to clone), as Docker's default
// profile does; threads, spawns, shells and git work as before.

const PYTHON = '/usr/bin/python3';
const python = spawnSync(PYTHON, ['-c', 'print(1)'], { encoding: 'utf8' }).status === 0;
const UNSHARE = '/usr/bin/unshare';
const unshare = spawnSync(UNSHARE, ['--help']).status === 0;
const CLONE = process.arch === 'arm64' ? 220 : 56;

// each way to a new user namespace, as a program asks for it: util-linux's unshare, glibc's unshare(2), a raw
// clone (fork-like: a child that is made exits at once), clone3 with a struct clone_args of its first version
const MAKE_NAMESPACES = `
import ctypes, os, struct, subprocess
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_FS, SIGCHLD = 0x10000000, 0x200, 17
made = subprocess.run(["${UNSHARE}", "-Ur", "id", "-u"], capture_output=True, text=True)
print("unshare -Ur:", made.returncode, (made.stdout + made.stderr).strip())
def answer(result):
    if result == 0: os._exit(0)
    if result > 0: os.waitpid(result, 0); return "a child in a new user namespace"
    return "errno %d" % ctypes.get_errno()
print("clone(CLONE_NEWUSER):", answer(libc.syscall(${CLONE}, ctypes.c_ulong(CLONE_NEWUSER | SIGCHLD), None, None, None, None)))
arguments = ctypes.create_string_buffer(struct.pack("8Q", CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0), 64)
print("clone3(CLONE_NEWUSER):", answer(libc.syscall(435, arguments, ctypes.c_size_t(64))))
# last: once in a namespace of its own, where its uid has no mapping, the process could make no other
print("unshare(CLONE_NEWUSER):", "made" if libc.unshare(CLONE_NEWUSER) == 0 else "errno %d" % ctypes.get_errno())
print("unshare(CLONE_FS):", libc.unshare(CLONE_FS))
`;

// (python -u: its lines and its children's in the order they are written) what ordinary programs do with clone: threads (glibc tries clone3 first), posix_spawn, subprocess, a pipeline
const ORDINARY = `
import os, subprocess, threading
results = []
threads = [threading.Thread(target=lambda n=n: results.append(n * n)) for n in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print("threads:", sorted(results))
pid = os.posix_spawn("/bin/echo", ["echo", "posix_spawn"], {})
os.waitpid(pid, 0)
print("pipeline:", subprocess.run(["/bin/sh", "-c", "printf 'b\\\\na\\\\n' | sort | tr '\\\\n' ' '"], capture_output=True, text=True).stdout)
`;

// node starts threads of its own (libuv's pool, V8's platform), and here a worker and a child too
const NODE = `
const { Worker } = require('node:worker_threads');
const { execFileSync } = require('node:child_process');
new Worker('require("node:worker_threads").parentPort.postMessage(6 * 7)', { eval: true }).on('message', (answer) => {
  console.log('worker:', answer, 'child:', execFileSync('/bin/echo', ['spawned']).toString().trim());
});
`;
// node is run in the sandbox only where the system's folders hold it (a home's nvm is out of sight)
const nodeSeen = /^\/(usr|opt|bin)\//.test(process.execPath);
if (!nodeSeen) console.warn(`NOT RUN: node at ${process.execPath} is not in the sandbox's system folders`);

const GIT = 'git init -q /tmp/r && cd /tmp/r && echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm one && git log --format=%s';

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;

function tool(name: string, argv: string[]): string {
  return makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${JSON.stringify(argv)} }` });
}

/** `hldp call NAME --json`, as a user runs it: the receipt. */
async function call(name: string): Promise<{ ok: boolean; output?: string; stderr?: string }> {
  return JSON.parse((await runCli(['call', name, '--repo', repo, '--json'], { env })).stdout);
}

const parts = [
  { part: PYTHON, present: python, provided: '.ci/run installs python3 with apt-get when it is missing' },
  { part: UNSHARE, present: unshare, provided: 'util-linux, which every Debian system has' },
];

describeNeeding(parts, 'no user namespaces in the sandbox (review W, W3)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-user-namespaces-');
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, {
      'tools/make-namespaces/TOOL.hdlp': tool('make-namespaces', [PYTHON, '-u', '-c', MAKE_NAMESPACES]),
      'tools/ordinary/TOOL.hdlp': tool('ordinary', [PYTHON, '-u', '-c', ORDINARY]),
      'tools/node-threads/TOOL.hdlp': tool('node-threads', [process.execPath, '-e', NODE]),
      'tools/git-work/TOOL.hdlp': tool('git-work', ['/bin/sh', '-c', GIT]),
    }, 'tools');
    await chmod(temp.path, 0o755);
    if (process.getuid?.() === 0) await giveToNobody(workspace);
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it('refuses a new user namespace however it is asked for: unshare -Ur, unshare(2), clone, clone3', async () => {
    expect(await call('make-namespaces')).toMatchObject({
      ok: true,
      output: 'unshare -Ur: 1 unshare: unshare failed: Operation not permitted\nclone(CLONE_NEWUSER): errno 1\nclone3(CLONE_NEWUSER): errno 38\nunshare(CLONE_NEWUSER): errno 1\nunshare(CLONE_FS): 0\n',
    });
  });

  it('leaves python its threads, posix_spawn and a shell pipeline', async () => {
    expect(await call('ordinary')).toMatchObject({ ok: true, output: 'threads: [0, 1, 4, 9]\nposix_spawn\npipeline: a b \n' });
  });

  it.skipIf(!nodeSeen)('leaves node its threads, a worker and a child', async () => {
    expect(await call('node-threads')).toMatchObject({ ok: true, output: 'worker: 42 child: spawned\n' });
  });

  it('leaves git its work', async () => {
    expect(await call('git-work')).toMatchObject({ ok: true, output: 'one\n' });
  });
});
