import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review K, K3: a gateway run as root (CI's and .ci/run's set-up) ran every tool as root, for whom no file mode bars a
// read: /etc/shadow, the SSH host keys, and a systemd EnvironmentFile under /etc holding the gateway's own token, which
// base64 carried past the redaction of the receipt. Real `hldp serve`, real tools reading real files.
const root = process.getuid?.() === 0;
const token = 'admin-token-0123456789abcdef';
const mark = `hldp-k3-${process.pid}`;
// made before the gateway starts, as an EnvironmentFile is
const environmentFile = `/etc/${mark}.env`;
const listedFile = `/etc/${mark}-listed.conf`;
const listedFolder = `/etc/${mark}-listed.d`;
// more root-only files than the start hides one by one (review M, M1: past 256 the rest were readable)
const manyFolder = `/etc/${mark}-many.d`;
// an SSH host key made after the start (review M, M2: `/etc/ssh/*_key` was expanded once, at the start)
const lateKey = `/etc/ssh/${mark}_key`;
let madeSshFolder = false;

let temp: { path: string; cleanup: () => Promise<void> };
// no config (a root gateway hides what the host keeps from everyone on its own), and one with sandbox.hide
let plain: ServiceProcess;
let configured: ServiceProcess;

type Receipt = { ok: boolean; code?: string; output: string; error?: string; exit_code: number | null };
const call = async (gateway: ServiceProcess, tool: string, params: Record<string, unknown>) =>
  (await request(gateway, 'POST', '/v1/call', { body: { tool, params }, headers: { authorization: `Bearer ${token}` } })).json as Receipt;

function serve(name: string, args: string[] = []): Promise<ServiceProcess> {
  return spawnService(
    ['serve', '--port', '0', '--repo', join(temp.path, 'repo'), ...args],
    { HLDP_CACHE_DIR: join(temp.path, `cache-${name}`), HLDP_DATA_DIR: join(temp.path, `data-${name}`), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_API_TOKEN: token, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required' },
    / at (http:\/\/[\d.:]+)\n/,
  );
}

// needs a root gateway
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

describeAsRoot('the host secrets a root gateway keeps from its tools', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await mkdir(join(temp.path, 'workspace'));
    await writeFile(environmentFile, `HLDP_API_TOKEN=${token}\n`, { mode: 0o600 });
    await chmod(environmentFile, 0o600);
    await writeFile(listedFile, 'listed-secret\n', { mode: 0o644 });
    await chmod(listedFile, 0o644);
    await mkdir(listedFolder, { mode: 0o755 });
    await writeFile(join(listedFolder, 'key'), 'folder-secret\n');
    await mkdir(manyFolder, { mode: 0o755 });
    await chmod(manyFolder, 0o755);
    for (let at = 1; at <= 300; at++) {
      const file = join(manyFolder, `f${String(at).padStart(3, '0')}`);
      await writeFile(file, `many-secret-${at}\n`, { mode: 0o600 });
      await chmod(file, 0o600);
    }
    madeSshFolder = !existsSync('/etc/ssh');
    if (madeSshFolder) await mkdir('/etc/ssh', { mode: 0o755 });
    const tool = (name: string, argv: string, extra: Record<string, string> = {}) =>
      makeToolYaml(name, { executor: 'shell', method: 'run', params_schema: '{ f: { type: string, required: true } }', shell: `{ argv: ${argv} }`, ...extra });
    await writeFiles(join(temp.path, 'repo'), {
      'tools/peek/TOOL.hdlp': tool('peek', '[cat, --, "{f}"]'),
      'tools/peek64/TOOL.hdlp': tool('peek64', '[base64, -w0, --, "{f}"]'),
      'tools/listing/TOOL.hdlp': tool('listing', '[ls, -A, --, "{f}"]'),
      'tools/plant/TOOL.hdlp': tool('plant', '[touch, --, "{f}"]'),
      'tools/reader/TOOL.hdlp': tool('reader', '[cat, --, "{f}"]', { sandbox: `{ filesystem: { read: ["${listedFolder}"] } }` }),
    });
    await writeFile(join(temp.path, 'config.yaml'), `sandbox:\n  mode: required\n  hide: [${listedFile}, ${listedFolder}]\n`);
    plain = await serve('plain');
    configured = await serve('configured', ['--config', join(temp.path, 'config.yaml')]);
  });
  afterAll(async () => {
    await plain?.stop();
    await configured?.stop();
    await rm(environmentFile, { force: true });
    await rm(listedFile, { force: true });
    await rm(listedFolder, { recursive: true, force: true });
    await rm(manyFolder, { recursive: true, force: true });
    await rm(lateKey, { force: true });
    if (madeSshFolder) await rm('/etc/ssh', { recursive: true, force: true });
    await temp?.cleanup();
  });

  // a hidden file is /dev/null on a mount without devices: reading it is refused (EACCES), a hidden folder is empty
  const refusedRead = (receipt: Receipt): void => {
    expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', output: '' });
    expect(receipt.error).toMatch(/Permission denied/);
  };

  it('hides a root-only file of /etc made before the start: an EnvironmentFile holding the admin token', async () => {
    refusedRead(await call(plain, 'peek', { f: environmentFile }));
    // encoded, the token passed the receipt's redaction
    const encoded = await call(plain, 'peek64', { f: environmentFile });
    refusedRead(encoded);
    expect(encoded.output).not.toContain(Buffer.from(`HLDP_API_TOKEN=${token}`).toString('base64').slice(0, 20));
  });

  it('hides the host’s password hashes and SSH host keys, and leaves what everyone may read readable', async () => {
    refusedRead(await call(plain, 'peek', { f: '/etc/shadow' }));
    const hostKeys = existsSync('/etc/ssh') ? readdirSync('/etc/ssh').filter((name) => /_key$/.test(name)) : [];
    for (const key of hostKeys) refusedRead(await call(plain, 'peek', { f: `/etc/ssh/${key}` }));
    const passwd = await call(plain, 'peek', { f: '/etc/passwd' });
    expect(passwd).toMatchObject({ ok: true });
    expect(passwd.output).toMatch(/^root:/m);
  });

  it('hides every root-only file of a folder holding more of them than it hides one by one', async () => {
    // the folder is hidden whole (an empty folder of the run's own), or its files one by one
    for (const at of ['001', '150', '300']) {
      const receipt = await call(plain, 'peek', { f: join(manyFolder, `f${at}`) });
      expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', output: '' });
      expect(receipt.error).toMatch(/Permission denied|No such file/);
    }
  });

  it('hides an SSH host key made after the start', async () => {
    await writeFile(lateKey, 'PRIVATE-HOSTKEY\n', { mode: 0o600 });
    await chmod(lateKey, 0o600);
    refusedRead(await call(plain, 'peek', { f: lateKey }));
  });

  it('hides what the operator lists in sandbox.hide, a folder behind an empty one of the run’s own', async () => {
    refusedRead(await call(configured, 'peek', { f: listedFile }));
    expect(await call(configured, 'listing', { f: listedFolder })).toMatchObject({ ok: true, output: '' });
    // the run's own empty folder: what it writes there never reaches the host's
    // run as nobody (sandbox.run_as), the tool may not write in the empty folder (root's, 0755) either
    expect(await call(configured, 'plant', { f: join(listedFolder, 'planted') })).toMatchObject({ ok: false, error: expect.stringMatching(/Permission denied/) });
    expect(existsSync(join(listedFolder, 'planted'))).toBe(false);
  });

  it('refuses a tool that declares a hidden path, naming it', async () => {
    const refused = await call(configured, 'reader', { f: join(listedFolder, 'key') });
    expect(refused).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', exit_code: null });
    expect(refused.error).toContain(listedFolder);
  });
});
