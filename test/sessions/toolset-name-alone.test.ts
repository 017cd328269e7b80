import { afterEach, describe, expect, it } from 'vitest';
import { api, call, connectClient, listedNames, META, startSessionServer, textOf } from './support.js';

// Review U11-19: `toolset {name: "ops"}`, without `action`, listed the catalogue and ignored the name; the agent went on
// believing ops was enabled. A name alone enables it (seed 000 §2: `enable_toolset|name`, idempotent); no name lists.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function serve() {
  const started = await startSessionServer('native-repo');
  cleanups.push(started.close);
  return { base: started.server.url };
}

describe('toolset with a name and no action', () => {
  it('enables that toolset over HTTP, as {action: "enable", name} does, and lists without a name', async () => {
    const { base } = await serve();
    const opened = await api(base, 'POST', '/v1/sessions', { body: { toolsets: ['repo'] } });
    const session = opened.body.id as string;
    const enabled = await api(base, 'POST', '/v1/call', { session, body: { tool: 'toolset', params: { name: 'ops' } } });
    expect(enabled.status).toBe(200);
    expect(enabled.headers.get('x-hldp-tools-changed')).toBe('true');
    expect(enabled.body).toMatchObject({ ok: true, tool: 'toolset', toolset: 'ops', status: 'enabled', tools: [expect.stringMatching(/^http-request\(/), expect.stringMatching(/^shell-exec\(cmd, cwd\?\)/)] });
    const tools = (await api(base, 'GET', `/v1/sessions/${session}/tools`)).body.tools.map((tool: { name: string }) => tool.name);
    expect(tools).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
    const again = await api(base, 'POST', '/v1/call', { session, body: { tool: 'toolset', params: { name: 'ops', scope: 'session' } } });
    expect(again.body).toMatchObject({ ok: true, toolset: 'ops', status: 'extended' });
    const unknown = await api(base, 'POST', '/v1/call', { session, body: { tool: 'toolset', params: { name: 'opps' } } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'TOOLSET_NOT_FOUND', error: "no toolset opps (did you mean 'ops'?); available: ops, repo" } });
    const listed = await api(base, 'POST', '/v1/call', { session, body: { tool: 'toolset', params: {} } });
    expect(listed.body).toMatchObject({ ok: true, toolsets: [{ name: 'ops', active: true }, { name: 'repo', active: true }] });
  });

  it('enables that toolset over /mcp, and the client is told its list changed', async () => {
    const { base } = await serve();
    const { client, changes, close } = await connectClient(`${base}/mcp?toolsets=repo`);
    cleanups.push(close);
    const changed = changes.next();
    const answer = await call(client, 'toolset', { name: 'ops' });
    expect(answer.isError ?? false).toBe(false);
    expect(textOf(answer)).toMatch(/^toolset 'ops' is active for 10 minutes after the last call of one of its tools\.\nIts tools:\n- http-request\(/);
    await changed;
    expect(await listedNames(client)).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
  });
});
