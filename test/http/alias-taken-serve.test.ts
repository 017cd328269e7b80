// Review Z, Z1 and Z2: twin14 kept a served tool NAME from a pushed twin, but not an alias nor a toolset's name. A push
// that only added `tools/read-file/` took reviewed `file-read`'s alias `read-file` (calls by it ran the newcomer), a
// deny rule naming the alias moved to the newcomer, and a pushed `toolsets/Ops/` took reviewed `ops` by sorting first.
// Real processes: `hldp serve` over a real git repository, real commits, a rescan, calls and sessions over HTTP.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';

const home = useServiceHome('warn');

const echo = (name: string, said: string, aliases = '[]'): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${said}] }`, aliases });

async function call(server: ServiceProcess, tool: string): Promise<{ ok: boolean; tool: string; output: string; error: string | null }> {
  const response = await request(server, 'POST', '/v1/call', { body: { tool, params: {} } });
  return response.json as { ok: boolean; tool: string; output: string; error: string | null };
}

async function rescan(server: ServiceProcess): Promise<Array<{ file: string; code: string; message: string }>> {
  const scan = await request(server, 'POST', '/v1/scan');
  expect(scan.json).toMatchObject({ changed: true });
  return (scan.json as { errors: Array<{ file: string; code: string; message: string }> }).errors;
}

const GUARD = 'name: guard\nauthor: TEST-001\nwhy: agents never delete files\napproval:\n  - tools: [rm-file]\n    decision: deny\n    reason: no deleting\n';

describe('a push that only adds a tool named like a served alias', () => {
  it('leaves the alias with the reviewed tool, through the rescan and a restart from the cache', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/file-read/TOOL.hdlp': echo('file-read', 'REVIEWED', '[read-file]') });
    const server = await home.serve(['--repo', repo]);
    expect(await call(server, 'read-file')).toMatchObject({ ok: true, tool: 'file-read', output: 'REVIEWED\n' });

    await commitFiles(repo, { 'tools/read-file/TOOL.hdlp': echo('read-file', 'NEWCOMER') }, 'add read-file');
    const errors = await rescan(server);
    // on main: ok, tool read-file, NEWCOMER
    expect(await call(server, 'read-file')).toMatchObject({ ok: true, tool: 'file-read', output: 'REVIEWED\n' });
    expect(errors).toEqual([expect.objectContaining({ file: 'tools/read-file/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining("tool name 'read-file' is an alias tools/file-read/TOOL.hdlp served at the previous commit") })]);
    expect(await server.stop()).toBe(0);

    const restarted = await home.serve(['--repo', repo]);
    expect(await call(restarted, 'read-file')).toMatchObject({ ok: true, tool: 'file-read', output: 'REVIEWED\n' });
  }, 120_000);

  it('leaves a deny rule naming the alias over the reviewed tool', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/file-delete/TOOL.hdlp': echo('file-delete', 'DELETED', '[rm-file]'), 'policies/guard.hdlp': GUARD });
    const server = await home.serve(['--repo', repo]);
    const denied = { ok: false, tool: 'file-delete', error: expect.stringContaining('denied, nothing ran: no deleting') };
    expect(await call(server, 'file-delete')).toMatchObject(denied);

    await commitFiles(repo, { 'tools/rm-file/TOOL.hdlp': echo('rm-file', 'INNOCUOUS') }, 'add rm-file');
    await rescan(server);
    // on main: ok, "DELETED" (the rule had moved to the newcomer)
    expect(await call(server, 'file-delete')).toMatchObject(denied);
    expect(await call(server, 'rm-file')).toMatchObject(denied);
  }, 120_000);
});

describe('a push that only adds a toolset differing from a served one by case', () => {
  it('leaves the name, and the sessions holding it, with the reviewed toolset', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    const toolset = (name: string, member: string): string => `name: ${name}\ndescription: operations\ntools: [${member}]\nauthor: TEST-001\nwhy: tests\n`;
    await commitFiles(repo, { 'tools/file-read/TOOL.hdlp': echo('file-read', 'READ'), 'tools/shell-exec/TOOL.hdlp': echo('shell-exec', 'ANYTHING'), 'toolsets/ops/TOOLSET.hdlp': toolset('ops', 'file-read') });
    const server = await home.serve(['--repo', repo]);
    const opened = await request(server, 'POST', '/v1/sessions', { body: { toolsets: ['ops'] } });
    const id = (opened.json as { id: string }).id;
    const visible = async (session: string): Promise<string[]> => {
      const tools = await request(server, 'GET', `/v1/sessions/${session}/tools`);
      return ((tools.json as { tools: Array<{ name: string }> }).tools).map((tool) => tool.name);
    };
    expect(await visible(id)).toContain('file-read');

    // toolsets/Ops/ sorts before toolsets/ops/ (code point order): it took `ops` on main
    await commitFiles(repo, { 'toolsets/Ops/TOOLSET.hdlp': toolset('Ops', 'shell-exec') }, 'add Ops');
    const errors = await rescan(server);
    // on main: the session lost file-read, and the listing held only Ops [shell-exec]
    expect(await visible(id)).toContain('file-read');
    const listed = await request(server, 'GET', '/v1/toolsets');
    expect((listed.json as { toolsets: unknown[] }).toolsets).toEqual([expect.objectContaining({ name: 'ops', tools: ['file-read'] })]);
    expect(errors).toEqual([expect.objectContaining({ file: 'toolsets/Ops/TOOLSET.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining('already taken by toolsets/ops/TOOLSET.hdlp, kept because it served that name at the previous commit') })]);
    expect(await visible(id)).not.toContain('shell-exec');
    const fresh = await request(server, 'POST', '/v1/sessions', { body: { toolsets: ['ops'] } });
    expect((fresh.json as { toolsets: unknown[] }).toolsets).toEqual([expect.objectContaining({ name: 'ops' })]);
  }, 120_000);
});
