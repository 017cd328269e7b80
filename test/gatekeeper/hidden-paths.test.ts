import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { describeWithBubblewrap } from '../sandbox/support/bubblewrap.js';

// The gateway's own data (data and cache folders, receipts database, config) is hidden from tools: the sandbox
// hides it from exec, and the file methods, which run outside the sandbox, refuse it and leave it out of listings.

describe('hldp serve with its data folder inside the workspace (started in $HOME)', () => {
  const home = useServiceHome('warn');

  it('refuses file-read and file-write of the receipts database and the data folder, and runs them elsewhere', async () => {
    const gateway = await home.serve();
    expect((await request(gateway, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo stored' } } })).json).toMatchObject({ ok: true });
    for (const path of ['data/receipts.db', 'data/receipts.db-wal', `${await realpath(home.path)}/data/receipts.db`, './cache/../data/receipts.db', 'cache']) {
      const read = await request(gateway, 'POST', '/v1/call', { body: { tool: 'file-read', params: { path, encoding: 'base64' } } });
      expect(read.json, path).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT', output: '', error: expect.stringContaining("hidden from tools: it holds the gateway's own data") });
    }
    // file-write asks for a confirmation first: given, the write is refused all the same
    const asked = await request(gateway, 'POST', '/v1/call', { body: { tool: 'file-write', params: { path: 'data/planted.txt', content: 'x' } } });
    const written = await request(gateway, 'POST', '/v1/confirm', { body: { token: asked.json.token } });
    expect(written.json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    expect(await readdir(join(home.path, 'data'))).not.toContain('planted.txt');
    await writeFile(join(home.path, 'notes.txt'), 'mine\n');
    expect((await request(gateway, 'POST', '/v1/call', { body: { tool: 'file-read', params: { path: 'notes.txt' } } })).json).toMatchObject({ ok: true, output: 'mine\n' });
  });
});

describeWithBubblewrap('hldp serve whose data folder lies deeper inside the workspace (~/.local/share/…), in the sandbox', () => {
  const home = useServiceHome('warn');

  it('keeps a tool from renaming a folder on the way to it, which would bring the data out under a new name (found in review)', async () => {
    // the sandbox hides the data folder by its name: moved with its parent (mv .local x), it was no longer hidden,
    // to exec as to file-read; each folder on the way is a mount point in the sandbox now, which rename(2) refuses
    const data = join(home.path, 'outer', 'share', 'data');
    const gateway = await home.serve([], { HLDP_DATA_DIR: data });
    const shell = async (cmd: string) => (await request(gateway, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd } } })).json;
    expect(await shell('echo stored')).toMatchObject({ ok: true });
    for (const folder of ['outer', 'outer/share', 'outer/share/data']) {
      const moved = await shell(`mv ${folder} ${home.path}/moved`);
      // a root gateway's tool (run as nobody) may not even see into root's 0700 folders
      expect(moved, folder).toMatchObject({ ok: false, code: 'NONZERO_EXIT', stderr: expect.stringMatching(/busy|Permission denied/i) });
    }
    expect(await readdir(data)).toContain('receipts.db');
    const read = await request(gateway, 'POST', '/v1/call', { body: { tool: 'file-read', params: { path: 'moved/share/data/receipts.db', encoding: 'base64' } } });
    expect(read.json).toMatchObject({ ok: false });
    // the folders on the way stay writable as before; a root gateway made them for its data, and its tools, run as
    // nobody (sandbox.run_as), may not write in root's folders
    const written = await shell('touch outer/mine.txt outer/share/mine.txt && echo written');
    if (process.getuid?.() === 0) expect(written).toMatchObject({ ok: false, stderr: expect.stringMatching(/Permission denied/) });
    else expect(written).toMatchObject({ ok: true, output: 'written\n' });
  });
});

describe('a gatekeeper whose sandbox hides paths inside its root', () => {
  let root: string;
  let sandbox: Sandbox;
  let gatekeeper: RunningGatekeeper;

  const call = async (method: string, params: Record<string, unknown>) => {
    const response = await fetch(`${gatekeeper.url}/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatekeeper.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method, params, timeout_ms: 10_000, max_output_bytes: 65_536 }),
    });
    return (await response.json()) as { ok: boolean; code: string | null; output: string; error: string | null };
  };

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-hidden-')));
    await mkdir(join(root, '.hldp-data'));
    await writeFile(join(root, '.hldp-data', 'receipts.db'), 'RECEIPTS');
    await writeFile(join(root, 'config.yaml'), 'api_token: secret-of-the-gateway\n');
    await writeFile(join(root, 'visible.txt'), 'visible\n');
    await symlink(join(root, '.hldp-data'), join(root, 'innocent'));
    await symlink(join(root, 'config.yaml'), join(root, 'settings.yaml'));
    sandbox = await createSandbox({ mode: 'off', limits: false, hide: [join(root, '.hldp-data'), join(root, 'config.yaml')] });
    gatekeeper = await startGatekeeper({ root, sandbox });
  });
  afterAll(async () => {
    await gatekeeper.close();
    await sandbox.close();
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ['read_file', { path: '.hldp-data/receipts.db' }],
    ['read_file', { path: 'config.yaml' }],
    ['read_file', { path: 'innocent/receipts.db' }],
    ['read_file', { path: 'settings.yaml' }],
    ['read_bytes', { path: '.hldp-data/receipts.db' }],
    ['write_file', { path: '.hldp-data/receipts.db', content: 'overwritten' }],
    ['write_file', { path: 'innocent/new.txt', content: 'planted' }],
    ['list_dir', { path: '.hldp-data' }],
    ['list_dir', { path: 'innocent' }],
  ])('refuses %s %j with PATH_OUTSIDE_ROOT, symlinks resolved', async (method, params) => {
    const result = await call(method, params);
    expect(result).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT', output: '', error: expect.stringContaining('hidden from tools') });
  });

  it('leaves the hidden paths out of a listing of the root, and the rest in', async () => {
    const result = await call('list_dir', { path: '.' });
    expect(result.ok).toBe(true);
    expect((JSON.parse(result.output) as Array<{ name: string }>).map((entry) => entry.name)).toEqual(['innocent', 'settings.yaml', 'visible.txt']);
  });

  it('changed nothing it refused, and still reads what is not hidden', async () => {
    expect(await readdir(join(root, '.hldp-data'))).toEqual(['receipts.db']);
    expect(await call('read_file', { path: 'visible.txt' })).toMatchObject({ ok: true, output: 'visible\n' });
  });
});
