import { chmod, copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredGateways, type ServedReceipt } from '../helpers/configured-gateways.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { mcpToolYaml, nodeServer } from '../mcp-servers/support.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review K, K3 (the rest of it): a gateway started as root (containers, this CI) ran every tool as uid 0 inside
// bubblewrap, whom no file mode stops. It now runs each local process (shell tools, gatekeeper exec, stdio MCP
// servers) as sandbox.run_as, nobody by default. Real `hldp serve`, `hldp call` and `hldp gatekeeper` as root.
const root = process.getuid?.() === 0;
const token = 'admin-token-run-as-0123456789';
const WHOAMI = fileURLToPath(new URL('./fixtures/whoami-server.mjs', import.meta.url));

type Receipt = ServedReceipt;

let temp: { path: string; cleanup: () => Promise<void> };
const gateways = configuredGateways(() => temp.path, token);
const { serve, call, services } = gateways;
const workspace = () => join(temp.path, 'workspace');
/** a root-only file outside /etc and outside the workspace, in a folder tools are given to read (in the host's /tmp: the operator lists it in the ceiling) */
const shared = () => join(temp.path, 'shared');

const tool = (name: string, argv: string, extra: Record<string, string> = {}) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${argv} }`, ...extra });

// needs a root gateway; a gateway of another user runs its tools as itself, as before
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

describeAsRoot('a root gateway runs its tools as sandbox.run_as', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    // made by root, 0755 (makeTempDir's own folder is 0700: nobody could not even reach the fixture below it)
    await chmod(temp.path, 0o755);
    await mkdir(workspace());
    await writeFile(join(workspace(), 'root-only'), 'workspace-secret\n', { mode: 0o600 });
    await mkdir(shared(), { mode: 0o755 });
    await writeFile(join(shared(), 'root-only'), 'shared-secret\n', { mode: 0o600 });
    await writeFile(join(shared(), 'readable'), 'shared-readable\n', { mode: 0o644 });
    // a setuid-root program of the host, as su, mount and passwd are (review O, O13)
    await copyFile('/usr/bin/id', join(shared(), 'suid-id'));
    await chmod(join(shared(), 'suid-id'), 0o4755);
    const file = '{ f: { type: string, required: true } }';
    await writeFiles(join(temp.path, 'repo'), {
      'tools/ids/TOOL.hdlp': tool('ids', `[sh, -c, 'echo "$(id -u) $(id -g) $(id -G)"; grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status']`),
      'tools/peek/TOOL.hdlp': tool('peek', '[cat, --, "{f}"]', { params_schema: file, sandbox: `{ filesystem: { read: ["${shared()}"] } }` }),
      'tools/suid/TOOL.hdlp': tool('suid', `["${join(shared(), 'suid-id')}"]`, { sandbox: `{ filesystem: { read: ["${shared()}"] } }` }),
      'tools/keep/TOOL.hdlp': tool('keep', `[sh, -c, 'echo kept > note.txt && cat note.txt && echo private > /tmp/t && cat /tmp/t']`),
      'tools/whoami/TOOL.hdlp': mcpToolYaml('whoami', 'who', 'whoami', '{}'),
      'tools/mcp-read/TOOL.hdlp': mcpToolYaml('mcp-read', 'who', 'read_path', '{ path: { type: string, required: true } }'),
    });
  });
  afterAll(async () => {
    await gateways.stopAll();
    await temp?.cleanup();
  });

  describe('when run_as is left out', () => {
    let gateway: ServiceProcess;
    beforeAll(async () => {
      gateway = await serve('default', { sandbox: { mode: 'required', ceiling: { readable_roots: [shared()] } }, mcp_servers: { who: nodeServer(WHOAMI, [], {}, []) } });
    });

    it('runs a shell tool as nobody, without groups or capabilities, on a cold run and from a waiting launcher', async () => {
      for (let run = 0; run < 3; run++) {
        const receipt = await call(gateway, 'ids');
        expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
        expect(receipt.output).toMatch(/^65534 65534 65534\n/);
        expect(receipt.output).toMatch(/CapPrm:\s+0+\n/);
        expect(receipt.output).toMatch(/CapEff:\s+0+\n/);
        expect(receipt.output).toMatch(/CapBnd:\s+0+\n/);
      }
    });

    it('cannot read a root-only file outside /etc, in the workspace or in a folder it declares', async () => {
      for (const path of [join(workspace(), 'root-only'), join(shared(), 'root-only')]) {
        const receipt = await call(gateway, 'peek', { f: path });
        expect(receipt.ok).toBe(false);
        expect(receipt.error).toMatch(/Permission denied/);
        expect(receipt.output).not.toMatch(/secret/);
      }
      expect((await call(gateway, 'peek', { f: join(shared(), 'readable') })).output).toBe('shared-readable\n');
    });

    it('writes and reads its own files in the workspace and its private /tmp', async () => {
      const receipt = await call(gateway, 'keep');
      expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
      expect(receipt.output).toBe('kept\nprivate\n');
      // the workspace folder root made was given to nobody at the first run; what the tool made is nobody's
      expect((await stat(workspace())).uid).toBe(65534);
      expect((await stat(join(workspace(), 'note.txt'))).uid).toBe(65534);
    });

    it('runs a stdio MCP server as nobody too', async () => {
      const receipt = await call(gateway, 'whoami');
      expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
      expect(receipt.output).toBe('65534 65534 65534');
      const secret = await call(gateway, 'mcp-read', { path: join(workspace(), 'root-only') });
      expect(secret.ok).toBe(false);
      expect(`${secret.output}${secret.error}`).toMatch(/EACCES/);
      expect(JSON.stringify(secret)).not.toMatch(/workspace-secret/);
    });

    it('says whom tools run as in /healthz', async () => {
      const health = (await request(gateway, 'GET', '/healthz', { headers: { authorization: `Bearer ${token}` } })).json as { sandbox: { run_as?: { uid: number; gid: number; name?: string } } };
      expect(health.sandbox.run_as).toEqual({ uid: 65534, gid: 65534, name: 'nobody' });
    });
  });

  it('runs tools as nobody with the sandbox off too', async () => {
    const gateway = await serve('off', { sandbox: 'off' });
    const receipt = await call(gateway, 'ids');
    expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
    expect(receipt.output).toMatch(/^65534 65534 65534\n/);
    expect((await call(gateway, 'peek', { f: join(shared(), 'root-only') })).error).toMatch(/Permission denied/);
  });

  // review O, O13: bubblewrap sets no_new_privs for its runs; with the sandbox off setpriv dropped without it, and a
  // setuid-root program the tool ran had euid 0 (failed before: "uid=65534(nobody) gid=65534(nogroup) euid=0(root)")
  it('gives a setuid-root program a tool runs no root euid, with the sandbox off as in it', async () => {
    for (const name of ['off-suid', 'on-suid']) {
      const gateway = await serve(name, { sandbox: name === 'off-suid' ? 'off' : { mode: 'required', ceiling: { readable_roots: [shared()] } } });
      const receipt = await call(gateway, 'suid');
      expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
      expect(receipt.output).toMatch(/^uid=65534\b/);
      expect(receipt.output).not.toMatch(/euid=/);
    }
  });

  it('runs tools as the {uid, gid} run_as gives', async () => {
    const gateway = await serve('numbers', { sandbox: { mode: 'required', run_as: { uid: 4321, gid: 4322 } } });
    const receipt = await call(gateway, 'ids');
    expect(receipt.output).toMatch(/^4321 4322 4322\n/);
  });

  it('runs tools as root only when run_as says root, and warns at start', async () => {
    const gateway = await serve('root', { sandbox: { mode: 'required', run_as: 'root' } });
    expect(gateway.stderr()).toMatch(/run_as: sandbox.run_as is root/);
    expect((await call(gateway, 'ids')).output).toMatch(/^0 0 0\n/);
  });

  it('runs hldp call and hldp gatekeeper exec as nobody', async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache-cli'), HLDP_DATA_DIR: join(temp.path, 'data-cli'), HLDP_WORKSPACE: workspace(), HLDP_SANDBOX: 'required' };
    const run = await runCli(['call', 'ids', '--repo', join(temp.path, 'repo')], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^65534 65534 65534\n/);
    const gatekeeperToken = 'gatekeeper-token-run-as-0123456789';
    const gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', workspace()], { ...env, HLDP_GATEKEEPER_TOKEN: gatekeeperToken }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
    services.push(gatekeeper);
    const body = { method: 'exec', params: { cmd: 'id -u; cat root-only' } };
    const answer = (await request(gatekeeper, 'POST', '/exec', { body, headers: { authorization: `Bearer ${gatekeeperToken}` } })).json as { output: string; stderr: string };
    expect(answer.output).toBe('65534\n');
    expect(answer.stderr).toMatch(/Permission denied/);
  });

  it('refuses a run_as user this host does not have, with a whole receipt, and runs nothing', async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache-cli'), HLDP_DATA_DIR: join(temp.path, 'data-cli'), HLDP_WORKSPACE: workspace(), HLDP_SANDBOX_RUN_AS: 'no-such-user-here' };
    const run = await runCli(['call', 'ids', '--repo', join(temp.path, 'repo'), '--json'], { env });
    const receipt = JSON.parse(run.stdout) as Receipt;
    expect(receipt.ok).toBe(false);
    expect(receipt.exit_code).toBeNull();
    expect(receipt.error).toMatch(/run_as names the user 'no-such-user-here'/);
  });
});
