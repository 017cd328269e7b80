import { execFile, spawnSync } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { describeNeeding, giveToNobody } from './support/bubblewrap.js';

// Review V, V1 and V2: what the kernel keeps outside every namespace bubblewrap makes. V1: the session keyring the
// gateway was started in (pam_keyinit at login, a service's own): a tool run as nobody read the operator's key from
// it (a CIFS or Kerberos secret), as its possessor. V2: AF_VSOCK, one space per kernel: a tool without network bound
// a port of this VM's vsock space, which the host could then not. The seccomp program now refuses the keyring calls
// (EPERM) and every socket family but AF_INET, AF_INET6, AF_NETLINK and (where declared) AF_UNIX (EAFNOSUPPORT);
// what ordinary programs do (resolve a name, fetch over HTTP, list interfaces, git, node's spawn) still works.

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const python = spawnSync(PYTHON, ['-c', 'print(1)'], { encoding: 'utf8' }).status === 0;

const KEYCTL = process.arch === 'arm64' ? 219 : 250;
const ADD_KEY = process.arch === 'arm64' ? 217 : 248;
const REQUEST_KEY = process.arch === 'arm64' ? 218 : 249;
const SECRET = 'krb5-or-cifs-password-of-the-operator';

// the operator's side: a session keyring of its own holding a secret (as pam_keyinit and cifscreds make), then the command
const WITH_KEYRING = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(${KEYCTL}, ctypes.c_long(1), ctypes.c_char_p(b"operator-session")) < 0: sys.exit("no keyring: %d" % ctypes.get_errno())
secret = b"${SECRET}"
if libc.syscall(${ADD_KEY}, b"user", b"cifs:a:fileserver", secret, ctypes.c_size_t(len(secret)), ctypes.c_long(-3)) < 0: sys.exit("no key: %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
`;
// whether this host lets a process make a keyring at all (Docker's default seccomp profile refuses keyctl)
const keyrings = python && spawnSync(PYTHON, ['-c', WITH_KEYRING, '/bin/true']).status === 0;
if (python && !keyrings) console.warn('NOT RUN: the keyring test needs a host that lets a process join a session keyring');

// the tool's side: the session keyring's keys and their payloads, a key added there, a key asked for
const KEY_PEEK = `
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(4096)
n = libc.syscall(${KEYCTL}, ctypes.c_long(11), ctypes.c_long(-3), buf, ctypes.c_long(4096))
print("read:", n, ctypes.get_errno() if n < 0 else "")
for key in (struct.unpack("%di" % (n // 4), buf.raw[:n]) if n > 0 else ()):
    payload = ctypes.create_string_buffer(256)
    m = libc.syscall(${KEYCTL}, ctypes.c_long(11), ctypes.c_long(key), payload, ctypes.c_long(256))
    print("key:", payload.raw[:m] if m > 0 else m)
n = libc.syscall(${ADD_KEY}, b"user", b"planted", b"x", ctypes.c_size_t(1), ctypes.c_long(-3))
print("add_key:", n, ctypes.get_errno() if n < 0 else "")
n = libc.syscall(${REQUEST_KEY}, b"user", b"cifs:a:fileserver", None, ctypes.c_long(0))
print("request_key:", n, ctypes.get_errno() if n < 0 else "")
`;

// AF_KEY, AF_RDS, AF_PACKET, AF_CAN, AF_TIPC, AF_BLUETOOTH, AF_ALG, AF_VSOCK, AF_XDP
const REFUSED_FAMILIES = [15, 21, 17, 29, 30, 31, 38, 40, 44];
const FAMILIES = `
import socket
for family in ${JSON.stringify(REFUSED_FAMILIES)}:
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_RAW):
        try:
            socket.socket(family, kind).close(); print(family, "made"); break
        except OSError as error:
            if error.errno != 97: print(family, error.errno); break
    else: print(family, "refused")
`;
const FAMILIES_OUTPUT = REFUSED_FAMILIES.map((family) => `${family} refused\n`).join('');

// what ordinary programs do, with network: getaddrinfo (AI_ADDRCONFIG asks netlink), if_nameindex (netlink), HTTP
const ORDINARY = (url: string): string => `
import socket, urllib.request
print("resolved:", socket.getaddrinfo("localhost", 80, socket.AF_INET, socket.SOCK_STREAM, 0, socket.AI_ADDRCONFIG)[0][4][0])
print("interfaces:", "lo" in [name for _, name in socket.if_nameindex()])
print("http:", urllib.request.urlopen("${url}").read().decode())
`;

const NODE = `
const { execFileSync } = require('node:child_process');
console.log('spawned:', execFileSync('/bin/echo', ['a child']).toString().trim());
console.log('interfaces:', Object.keys(require('node:os').networkInterfaces()).includes('lo'));
`;
// node is run in the sandbox only where the system's folders hold it (a home's nvm is out of sight)
const nodeSeen = /^\/(usr|opt|bin)\//.test(process.execPath);
if (!nodeSeen) console.warn(`NOT RUN: node at ${process.execPath} is not in the sandbox's system folders`);
const CURL = '/usr/bin/curl';
const curl = spawnSync(CURL, ['--version']).status === 0;
if (!curl) console.warn(`NOT RUN: the curl test needs ${CURL}`);

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;
let server: Server;
let url: string;

function tool(name: string, argv: string[], sandbox = ''): string {
  return `${makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${JSON.stringify(argv)} }` })}${sandbox ? `sandbox:\n${sandbox}` : ''}`;
}

/** `hldp call NAME --json`, started by `parent` (a command line that execs the rest) where given: the receipt. */
async function call(name: string, parent: string[] = []): Promise<{ ok: boolean; output?: string; stderr?: string }> {
  const args = ['call', name, '--repo', repo, '--json'];
  if (parent.length === 0) return JSON.parse((await runCli(args, { env })).stdout);
  const argv = [...parent, process.execPath, HLDP_BIN, ...args];
  const { stdout } = await run(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, timeout: 55_000 });
  return JSON.parse(stdout);
}

describeNeeding([{ part: PYTHON, present: python, provided: '.ci/run installs python3 with apt-get when it is missing' }], 'what no namespace covers: keyrings, vsock and other socket families (review V, V1 and V2)', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-kernel-shared-');
    server = createServer((_request, response) => response.end('served on the host'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const workspace = join(temp.path, 'ws');
    await mkdir(workspace);
    repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, {
      'tools/key-peek/TOOL.hdlp': tool('key-peek', [PYTHON, '-c', KEY_PEEK]),
      'tools/families/TOOL.hdlp': tool('families', [PYTHON, '-c', FAMILIES], '  network: true\n'),
      'tools/ordinary/TOOL.hdlp': tool('ordinary', [PYTHON, '-c', ORDINARY(url)], '  network: true\n'),
      'tools/git-work/TOOL.hdlp': tool('git-work', ['/bin/sh', '-c', 'git init -q /tmp/r && cd /tmp/r && echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm one && git log --format=%s']),
      'tools/curl-get/TOOL.hdlp': tool('curl-get', [CURL, '-sS', url], '  network: true\n'),
      'tools/node-spawn/TOOL.hdlp': tool('node-spawn', [process.execPath, '-e', NODE]),
    }, 'tools');
    await chmod(temp.path, 0o755);
    if (process.getuid?.() === 0) await giveToNobody(workspace);
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, HLDP_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    server?.close();
    await temp?.cleanup();
  });

  it.skipIf(!keyrings)('a gateway started in a session keyring holding a key: its tool can neither read, add nor ask for one', async () => {
    const receipt = await call('key-peek', [PYTHON, '-c', WITH_KEYRING]);
    expect(receipt).toMatchObject({ ok: true, output: 'read: -1 1\nadd_key: -1 1\nrequest_key: -1 1\n' });
    expect(JSON.stringify(receipt)).not.toContain(SECRET);
  });

  it('refuses AF_VSOCK and every other family but AF_INET, AF_INET6, AF_NETLINK and AF_UNIX, even with network', async () => {
    expect(await call('families')).toMatchObject({ ok: true, output: FAMILIES_OUTPUT });
  });

  it('leaves python its name resolution, interfaces and HTTP', async () => {
    expect(await call('ordinary')).toMatchObject({ ok: true, output: 'resolved: 127.0.0.1\ninterfaces: True\nhttp: served on the host\n' });
  });

  it('leaves git its work', async () => {
    expect(await call('git-work')).toMatchObject({ ok: true, output: 'one\n' });
  });

  it.skipIf(!curl)('leaves curl its HTTP', async () => {
    expect(await call('curl-get')).toMatchObject({ ok: true, output: 'served on the host' });
  });

  it.skipIf(!nodeSeen)("leaves node its spawn (a unix socket pair) and its interfaces (netlink)", async () => {
    expect(await call('node-spawn')).toMatchObject({ ok: true, output: 'spawned: a child\ninterfaces: true\n' });
  });
});
