import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { api, startSessionServer } from './support.js';

// Review P, P6: `tool_load` of a group named and loaded the group's `unlisted: true` tools, which "run when called by
// name but are never advertised". A real server over HTTP, a session, and the meta-tool as an agent calls it.
const toolYaml = (name: string, extra = '', group = 'ops'): string =>
  [`name: ${name}`, `display: ${name}`, `intent: operate the servers (${name})`, 'method: run', 'executor: shell', 'params_schema: {}', `shell: { argv: [echo, "ran ${name}"] }`, `group: ${group}`, extra, 'author: TEST-001', 'created: 2026-12-04', 'why: tests need it', ''].join('\n');

let base: string;
let close: () => Promise<void>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const temp = await makeTempDir('hldp-group-unlisted-');
  cleanup = temp.cleanup;
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/opsa/TOOL.hdlp': toolYaml('opsa'), 'tools/opsb/TOOL.hdlp': toolYaml('opsb', 'unlisted: true'), 'tools/hidx/TOOL.hdlp': toolYaml('hidx', 'unlisted: true', 'hidden') });
  const started = await startSessionServer(repo);
  close = started.close;
  base = started.server.url;
});
afterAll(async () => {
  await close?.();
  await cleanup?.();
});

describe('tool_load of a group', () => {
  it('loads and names only its listed tools; the unlisted one still runs by its exact name', async () => {
    const session = (await api(base, 'POST', '/v1/sessions')).body.id as string;
    const loaded = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_load', params: { name: 'ops' } } });
    expect(loaded.status).toBe(200);
    expect(loaded.body).toMatchObject({ ok: true, loaded: ['opsa'] });
    expect(JSON.stringify(loaded.body)).not.toContain('opsb');
    const state = await api(base, 'GET', `/v1/sessions/${session}`);
    expect(JSON.stringify(state.body)).not.toContain('opsb');
    const byName = await api(base, 'POST', '/v1/call', { session, body: { tool: 'opsb', params: {} } });
    expect(byName.body).toMatchObject({ ok: true, output: 'ran opsb\n' });
  });

  // Review Q, Q7: a group whose tools are all unlisted answered 403 TOOL_FORBIDDEN "'opsb' is unlisted: ...", naming the
  // tool the filter had just left out. It answers as a group with no tool to load, naming none.
  it('of only unlisted tools names none of them, and the unlisted one still runs by its exact name', async () => {
    const session = (await api(base, 'POST', '/v1/sessions')).body.id as string;
    const loaded = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_load', params: { name: 'hidden' } } });
    expect(loaded.body).toMatchObject({ ok: false, code: 'TOOL_NOT_FOUND' });
    expect(JSON.stringify(loaded.body)).not.toContain('hidx');
    const byName = await api(base, 'POST', '/v1/call', { session, body: { tool: 'hidx', params: {} } });
    expect(byName.body).toMatchObject({ ok: true, output: 'ran hidx\n' });
  });
});
