import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configuredGateways } from '../helpers/configured-gateways.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { FILESYSTEM, mcpToolYaml, nodeServer } from '../mcp-servers/support.js';
import { describeNeeding, giveToNobody, ROOT } from './support/bubblewrap.js';

// Review userZ4, F13: README's `files` server (server-filesystem, `sandbox.filesystem.write: [/srv/shared]`) on a root
// gateway runs as sandbox.run_as, nobody; a folder root made with a plain mkdir is not nobody's, and every write failed
// `EACCES: permission denied, open '…'` with nothing in the receipt's stderr. The raw error is kept; beside it, as for
// a sandbox without network, a line names sandbox.run_as, the path and the declared write folder, and the fix. Real
// `hldp serve` as root, the real server-filesystem from npm, a real git repository.
const token = 'admin-token-run-as-permission-0123';
let temp: { path: string; cleanup: () => Promise<void> };
const gateways = configuredGateways(() => temp.path, token);
const shared = (): string => join(temp.path, 'shared');

describeNeeding([ROOT], 'a root gateway whose MCP server, run as nobody, may not write a folder it declares', () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-mcp-eacces-');
    // made by root, 0755: nobody reaches it, and may not write in it (as a fresh `mkdir /srv/shared`)
    await chmod(temp.path, 0o755);
    await mkdir(shared(), { mode: 0o755 });
    await mkdir(join(temp.path, 'workspace'));
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, {
      'tools/fs-write/TOOL.hdlp': mcpToolYaml('fs-write', 'files', 'write_file', '{ path: { type: string, required: true }, content: { type: string, required: true } }'),
    });
  });
  afterAll(async () => {
    await gateways.stopAll();
    await temp?.cleanup();
  });

  it('keeps the raw EACCES and says, beside it, that the server runs as nobody, who may not write the declared folder', async () => {
    const gateway = await gateways.serve('default', { sandbox: { mode: 'required' }, mcp_servers: { files: nodeServer(FILESYSTEM, [shared()], {}, [shared()]) } });
    const target = join(shared(), 'c.txt');
    const failed = (await gateways.call(gateway, 'fs-write', { path: target, content: 'hello' })) as { ok: boolean; error?: string; stderr?: string };
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain(`EACCES: permission denied, open '${target}'`);
    expect(failed.stderr).toContain(
      `MCP server 'files' runs as uid 65534, gid 65534 (nobody) (sandbox.run_as), who was refused '${target}', under its declared mcp_servers.files.sandbox.filesystem.write '${shared()}': ` +
        `a folder it writes must be writable by that user (install -d -o nobody ${shared()}, or chown -R nobody it), or set sandbox.run_as to a user who may`,
    );

    // the fix the line gives, and the same call runs, with no such line
    await giveToNobody(shared());
    const written = (await gateways.call(gateway, 'fs-write', { path: target, content: 'hello' })) as { ok: boolean; stderr?: string };
    expect(written.ok, JSON.stringify(written)).toBe(true);
    expect(written.stderr ?? '').not.toMatch(/sandbox\.run_as/);
    expect(await readFile(target, 'utf8')).toBe('hello');
  });
});
