import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { configuredGateways, type ServedReceipt } from '../helpers/configured-gateways.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { describeNeeding, ROOT } from './support/bubblewrap.js';

// Review O, O5: the gatekeeper's file methods ran in the gateway, as root, while every process tool ran as
// sandbox.run_as (nobody): `file-read` of a root-only (0600) file of the workspace returned it ("top-secret"), and
// `file-write` left root's files in the user's workspace. They now open files as that user (a helper process of
// theirs), so the kernel judges their access. Real `hldp serve`, `hldp call` and `hldp gatekeeper` as root.
const root = process.getuid?.() === 0;
const token = 'admin-token-run-as-files-0123456789';

type Receipt = ServedReceipt;

let temp: { path: string; cleanup: () => Promise<void> };
const gateways = configuredGateways(() => temp.path, token);
const { serve, call, services } = gateways;
const workspace = () => join(temp.path, 'workspace');

const path = '{ path: { type: string, required: true } }';
// needs a root gateway
const describeAsRoot = (name: string, suite: () => void): void => describeNeeding([ROOT], name, suite);

describeAsRoot("a root gateway's file methods act as sandbox.run_as", () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(workspace());
    await writeFile(join(workspace(), 'secret.env'), 'top-secret-root-only\n', { mode: 0o600 });
    await writeFile(join(workspace(), 'readme.txt'), 'for everyone\n', { mode: 0o644 });
    await writeFile(join(workspace(), 'roots.txt'), 'root wrote this\n', { mode: 0o644 });
    await mkdir(join(workspace(), 'closed'), { mode: 0o700 });
    await writeFile(join(workspace(), 'closed', 'inside.txt'), 'behind a closed folder\n', { mode: 0o644 });
    await symlink('closed', join(workspace(), 'to-closed'));
    await writeFiles(join(temp.path, 'repo'), {
      'tools/read/TOOL.hdlp': makeToolYaml('read', { method: 'read_file', params_schema: path }),
      'tools/peek/TOOL.hdlp': makeToolYaml('peek', { method: 'read_bytes', params_schema: path }),
      'tools/write/TOOL.hdlp': makeToolYaml('write', { method: 'write_file', params_schema: `{ path: { type: string, required: true }, content: { type: string, required: true }, create_dirs: { type: boolean } }` }),
      'tools/list/TOOL.hdlp': makeToolYaml('list', { method: 'list_dir', params_schema: '{ path: { type: string } }' }),
      'tools/shell/TOOL.hdlp': makeToolYaml('shell', { params_schema: '{ cmd: { type: string, required: true } }' }),
    });
  });
  afterAll(async () => {
    await gateways.stopAll();
    await temp?.cleanup();
  });

  for (const mode of ['required', 'off'] as const) {
    describe(`with the sandbox ${mode}`, () => {
      let gateway: ServiceProcess;
      beforeAll(async () => {
        gateway = await serve(mode, { sandbox: { mode } });
      });

      it('refuses a root-only file to file-read and read_bytes, as to a process tool', async () => {
        const shell = await call(gateway, 'shell', { cmd: 'id -u; cat secret.env' });
        expect(shell.output).toBe('65534\n');
        for (const tool of ['read', 'peek']) {
          const receipt = await call(gateway, tool, { path: 'secret.env' });
          expect(receipt.ok, JSON.stringify(receipt)).toBe(false);
          expect(receipt.code).toBe('IO_ERROR');
          expect(receipt.error).toMatch(/EACCES: permission denied, open 'secret.env' as uid 65534, gid 65534 \(nobody\)/);
          expect(JSON.stringify(receipt)).not.toMatch(/top-secret/);
        }
        expect(await call(gateway, 'read', { path: 'closed/inside.txt' })).toMatchObject({ ok: false, code: 'IO_ERROR', error: expect.stringMatching(/EACCES/) });
        expect(await call(gateway, 'read', { path: 'to-closed/inside.txt' })).toMatchObject({ ok: false, error: expect.stringMatching(/EACCES/) });
        expect(await call(gateway, 'list', { path: 'closed' })).toMatchObject({ ok: false, error: expect.stringMatching(/EACCES/) });
      });

      it('reads, lists and writes what the user may, and what it makes is the user\'s', async () => {
        expect(await call(gateway, 'read', { path: 'readme.txt' })).toMatchObject({ ok: true, output: 'for everyone\n' });
        const listed = await call(gateway, 'list');
        expect(listed.ok, JSON.stringify(listed)).toBe(true);
        expect(JSON.parse(listed.output)).toEqual(expect.arrayContaining([{ name: 'secret.env', type: 'file', size: 21 }]));
        const written = await call(gateway, 'write', { path: `made-${mode}/note.txt`, content: 'mine\n', create_dirs: true });
        expect(written.ok, JSON.stringify(written)).toBe(true);
        for (const made of [`made-${mode}`, `made-${mode}/note.txt`]) expect((await stat(join(workspace(), made))).uid).toBe(65534);
        expect(await call(gateway, 'shell', { cmd: `echo more >> made-${mode}/note.txt && cat made-${mode}/note.txt` })).toMatchObject({ ok: true, output: 'mine\nmore\n' });
      });

      it("does not write root's file in place, as a process tool cannot", async () => {
        const receipt = await call(gateway, 'write', { path: 'roots.txt', content: 'overwritten\n' });
        expect(receipt).toMatchObject({ ok: false, code: 'IO_ERROR', error: expect.stringMatching(/EACCES: permission denied, open 'roots.txt' as uid 65534/) });
        expect(await readFile(join(workspace(), 'roots.txt'), 'utf8')).toBe('root wrote this\n');
      });
    });
  }

  it('hldp call and hldp gatekeeper act as run_as too', async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache-cli'), HLDP_DATA_DIR: join(temp.path, 'data-cli'), HLDP_WORKSPACE: workspace() };
    const run = await runCli(['call', 'read', '--params', '{"path":"secret.env"}', '--repo', join(temp.path, 'repo'), '--json'], { env });
    const receipt = JSON.parse(run.stdout) as Receipt;
    expect(receipt).toMatchObject({ ok: false, error: expect.stringMatching(/EACCES/) });
    expect(run.stdout).not.toMatch(/top-secret/);
    const gatekeeperToken = 'gatekeeper-token-run-as-files-0123456789';
    const gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', workspace()], { ...env, HLDP_GATEKEEPER_TOKEN: gatekeeperToken }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
    services.push(gatekeeper);
    const answer = (await request(gatekeeper, 'POST', '/exec', { body: { method: 'read_file', params: { path: 'secret.env' } }, headers: { authorization: `Bearer ${gatekeeperToken}` } })).json as Receipt;
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/EACCES: permission denied, open 'secret.env' as uid 65534/) });
    const readable = (await request(gatekeeper, 'POST', '/exec', { body: { method: 'read_file', params: { path: 'readme.txt' } }, headers: { authorization: `Bearer ${gatekeeperToken}` } })).json as Receipt;
    expect(readable).toMatchObject({ ok: true, output: 'for everyone\n' });
  });

  it('reads as root only when run_as says root', async () => {
    const gateway = await serve('as-root', { sandbox: { mode: 'required', run_as: 'root' } });
    expect(await call(gateway, 'read', { path: 'secret.env' })).toMatchObject({ ok: true, output: 'top-secret-root-only\n' });
  });
});
