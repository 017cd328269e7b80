import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minimalEnvironment, runProcess } from '../../src/executors/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { git, makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { describeNeeding, giveToNobody } from './support/bubblewrap.js';

// Review U, U1: a unix socket bound into the sandbox is a way out no read-only bind and no private network stops. A
// definition declaring the folder of a host daemon's socket (lxd's, incus', a `tmux -S` one) connected and had the
// host run a command as root; one with `network: true` reached the host's abstract sockets (X11's). The sandbox's
// seccomp filter now refuses socket(AF_UNIX) unless the tool declares `sandbox.unix_sockets: true`.

// the system's python (one under the home folder, a pyenv shim, is out of the sandbox's sight)
const PYTHON = '/usr/bin/python3';
const python = spawnSync(PYTHON, ['-c', 'print(1)'], { encoding: 'utf8' }).status === 0;

let temp: { path: string; cleanup: () => Promise<void> };
let daemonFolder: string;
let repo: string;
let workspace: string;
let env: NodeJS.ProcessEnv;
const servers: Server[] = [];
/** the lines the host daemons were sent: a daemon such as tmux would have run each as a command, outside the sandbox */
const received: string[] = [];
const abstract = `hldp-u1-${process.pid}`;
/** the host's datagram receivers (review W, W1): a syslog- or sd_notify-style daemon's, in the workspace and abstract */
let datagrams: ChildProcessWithoutNullStreams;
const abstractDatagrams = `hldp-w1-${process.pid}`;

// binds both, says so, holds them until its stdin ends, then prints every datagram they were sent, one a line
const DATAGRAM_RECEIVER = `
import os, socket, sys
names = [sys.argv[1], "\\0" + sys.argv[2]]
receivers = []
for name in names:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(name); s.setblocking(False); receivers.append(s)
os.chmod(sys.argv[1], 0o666)
print("ready", flush=True)
sys.stdin.read()
for s in receivers:
    while True:
        try: print("received:", s.recv(100))
        except BlockingIOError: break
`;

function datagramReceiver(path: string, name: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(PYTHON, ['-c', DATAGRAM_RECEIVER, path, name]);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', () => resolve(child));
  });
}

/** What the host's datagram receivers were sent, once they are told to stop. */
function datagramsReceived(): Promise<string> {
  let printed = '';
  datagrams.stdout.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
  datagrams.stdin.end();
  return new Promise((resolve) => datagrams.once('close', () => resolve(printed)));
}

function daemon(path: string): Promise<void> {
  const server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.once('data', (line: string) => {
      received.push(line.trim());
      socket.end('done\n');
    });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(path, resolve));
}

// each tool prints what it saw, and exits 0: the receipt's output says it
const CONNECT = (address: string): string => `
import socket
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(${JSON.stringify(address)})
    s.sendall(b"id > /host-ran\\n")
    print("host answered:", s.recv(100).decode().strip())
except OSError as error:
    print("refused:", error.errno, error.strerror)
`;

const OWN_PIPES = `
import os, socket, subprocess
a, b = socket.socketpair()
a.sendall(b"pair"); print("socketpair:", b.recv(10).decode())
r, w = os.pipe(); os.write(w, b"pipe"); print("pipe:", os.read(r, 10).decode())
print("child:", subprocess.run(["echo", "through a child's pipes"], capture_output=True, text=True).stdout.strip())
try:
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print("datagram pair: made")
except OSError as error:
    print("datagram pair refused:", error.errno)
`;

// every AF_UNIX pair type but stream and seqpacket: SOCK_DGRAM, SOCK_RAW (the kernel makes it a datagram socket),
// SOCK_RDM, SOCK_PACKET (the kernel refuses these two itself, ESOCKTNOSUPPORT); whatever is made sends to the host
const OTHER_PAIRS = (targets: string[]): string => `
import socket
for name, kind in (("SOCK_DGRAM", 2), ("SOCK_RAW", 3), ("SOCK_RDM", 4), ("SOCK_PACKET", 10)):
    try:
        a, b = socket.socketpair(socket.AF_UNIX, kind)
    except OSError as error:
        print(name, "pair refused:", error.errno); continue
    for target in ${JSON.stringify(targets)}:
        try: a.sendto(b"from " + name.encode() + b" in the sandbox", target); print(name, "sent to", repr(target))
        except OSError as error: print(name, "send refused:", error.errno)
`;

const IO_URING = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, params)
print("io_uring_setup:", fd, ctypes.get_errno() if fd < 0 else "a ring")
`;

const X32 = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("before", flush=True)
libc.syscall(0x40000000 | 39)
print("x32 getpid returned")
`;

function tool(name: string, script: string, sandbox: string): string {
  return `${makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${JSON.stringify([PYTHON, '-c', script])} }` })}sandbox:\n${sandbox}`;
}

/** `hldp call NAME --json` as a user runs it: the receipt's outcome, its error message as `message`. */
async function call(name: string, config?: string): Promise<{ ok: boolean; output: string; stderr: string; code?: string; message?: string; signal?: string | null }> {
  const run = await runCli(['call', name, '--repo', repo, '--json', ...(config ? ['--config', config] : [])], { env });
  const receipt = JSON.parse(run.stdout) as { ok: boolean; output?: string; stderr?: string; code?: string | null; error?: string | null; signal?: string | null };
  return { ok: receipt.ok, output: receipt.output ?? '', stderr: receipt.stderr ?? '', ...(receipt.code ? { code: receipt.code } : {}), ...(receipt.error ? { message: receipt.error } : {}), signal: receipt.signal ?? null };
}

describeNeeding([{ part: PYTHON, present: python, provided: '.ci/run installs python3 with apt-get when it is missing' }], 'unix sockets from the sandbox (review U, U1)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-unix-sockets-');
    // a daemon's folder outside /tmp and the home's dot-entries, which a definition may declare (lxd's is under /var/snap)
    daemonFolder = await mkdtemp(join(homedir(), 'hldp-u1-daemon-'));
    await chmod(daemonFolder, 0o755);
    await daemon(join(daemonFolder, 'agent.sock'));
    await daemon(`\0${abstract}`);
    workspace = join(temp.path, 'ws');
    await writeFiles(workspace, { 'README': 'the workspace\n' });
    // a `tmux -S` socket in the project folder: in the workspace, which every tool sees without declaring it
    await daemon(join(workspace, 'tmux.sock'));
    // a root gateway's tools run as nobody: the daemon's socket is open to every user, as lxd's group or tmux's own are to theirs
    await chmod(join(daemonFolder, 'agent.sock'), 0o666);
    repo = join(temp.path, 'repo');
    const declared = `  filesystem:\n    read: [${daemonFolder}]\n`;
    await writeFiles(repo, {
      'tools/sock-peek/TOOL.hdlp': tool('sock-peek', CONNECT(join(daemonFolder, 'agent.sock')), declared),
      // Node binds an abstract name as the whole sun_path, padded with NULs: the tool asks for it so (108 bytes)
      'tools/abstract-peek/TOOL.hdlp': tool('abstract-peek', CONNECT(`\0${abstract}`.padEnd(108, '\0')), '  network: true\n'),
      'tools/docker-like/TOOL.hdlp': tool('docker-like', CONNECT(join(daemonFolder, 'agent.sock')), `  unix_sockets: true\n${declared}`),
      'tools/own-pipes/TOOL.hdlp': tool('own-pipes', OWN_PIPES, '  network: false\n'),
      'tools/other-pairs/TOOL.hdlp': tool('other-pairs', OTHER_PAIRS([join(workspace, 'host-dgram.sock'), `\0${abstractDatagrams}`]), '  network: true\n'),
      'tools/ring/TOOL.hdlp': tool('ring', IO_URING, '  network: false\n'),
      'tools/x32/TOOL.hdlp': tool('x32', X32, '  network: false\n'),
      'ceiling.yaml': 'sandbox:\n  ceiling:\n    unix_sockets: true\n',
    });
    await git(repo, 'init', '-q');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'tools');
    await chmod(temp.path, 0o755);
    if (process.getuid?.() === 0) await giveToNobody(workspace);
    await chmod(join(workspace, 'tmux.sock'), 0o666);
    datagrams = await datagramReceiver(join(workspace, 'host-dgram.sock'), abstractDatagrams);
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    if (datagrams?.exitCode === null) datagrams.kill();
    if (daemonFolder) await rm(daemonFolder, { recursive: true, force: true });
    await temp?.cleanup();
  });

  it('refuses a connect to a host daemon whose socket is in a declared folder: the host is sent nothing', async () => {
    const result = await call('sock-peek');
    expect(result).toMatchObject({ ok: true, output: 'refused: 13 Permission denied\n' });
    expect(received).toEqual([]);
  });

  it('refuses the host\'s abstract sockets to a tool with the host\'s network', async () => {
    const result = await call('abstract-peek');
    expect(result).toMatchObject({ ok: true, output: 'refused: 13 Permission denied\n' });
    expect(received).toEqual([]);
  });

  it('refuses a tool that declares unix_sockets unless the operator\'s ceiling allows them, then lets it reach the socket', async () => {
    // a definition anyone with push access writes may not declare its way back to the host's daemons (review U, U1)
    const refused = await call('docker-like');
    expect(refused).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE' });
    expect(refused.message).toMatch(/sandbox\.unix_sockets: true' is beyond the gateway's ceiling: .*sandbox\.ceiling\.unix_sockets: true/);
    expect(received).toEqual([]);
    const warned = await runCli(['validate', repo, '--json'], { env });
    expect(JSON.parse(warned.stdout).warnings).toContainEqual(expect.objectContaining({ code: 'BEYOND_SANDBOX_CEILING', message: expect.stringMatching(/sandbox\.unix_sockets/) }));
    const allowed = await call('docker-like', join(repo, 'ceiling.yaml'));
    expect(allowed).toMatchObject({ ok: true, output: 'host answered: done\n' });
    expect(received).toEqual(['id > /host-ran']);
    received.length = 0;
    const validated = await runCli(['validate', repo, '--json', '--config', join(repo, 'ceiling.yaml')], { env });
    expect(JSON.parse(validated.stdout).warnings).not.toContainEqual(expect.objectContaining({ message: expect.stringMatching(/sandbox\.unix_sockets/) }));
  });

  it('leaves a tool its pipes and stream socketpairs; a datagram pair, which can send anywhere, is refused', async () => {
    const result = await call('own-pipes');
    expect(result).toMatchObject({ ok: true, output: "socketpair: pair\npipe: pipe\nchild: through a child's pipes\ndatagram pair refused: 13\n" });
  });

  it('refuses every other pair type, SOCK_RAW included: the host\'s datagram sockets, in the workspace and abstract, get nothing (review W, W1)', async () => {
    const result = await call('other-pairs');
    expect(result).toMatchObject({ ok: true, output: ['SOCK_DGRAM', 'SOCK_RAW', 'SOCK_RDM', 'SOCK_PACKET'].map((name) => `${name} pair refused: 13\n`).join('') });
    expect(await datagramsReceived()).toBe('');
  });

  it('refuses io_uring, which makes and connects sockets without the socket call', async () => {
    const result = await call('ring');
    expect(result).toMatchObject({ ok: true, output: 'io_uring_setup: -1 38\n' });
  });

  it.skipIf(process.arch !== 'x64')('kills a process that makes an x32 system call', async () => {
    const result = await call('x32');
    expect(result).toMatchObject({ ok: false, output: 'before\n', signal: 'SIGSYS' });
  });

  it('refuses a socket in the workspace to a run whose bubblewrap is started for it (the cold path)', async () => {
    const sandbox = await createSandbox({ mode: 'auto', protect: [repo] });
    try {
      // an environment no shell can export: bubblewrap is spawned for this run, not taken waiting
      const env = minimalEnvironment({ PATH: '/usr/bin:/bin', 'NOT-AN-IDENTIFIER': '1' });
      const result = await runProcess({ file: PYTHON, args: ['-c', CONNECT(join(workspace, 'tmux.sock'))], cwd: workspace, env, timeoutMs: 20_000, maxOutputBytes: 65_536, isolation: { sandbox, workspace } });
      expect(result).toMatchObject({ ok: true, output: 'refused: 13 Permission denied\n' });
      expect(received).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
