import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { api, call, connectClient, startSessionServer, textOf } from './support.js';

// names a provider cannot take as they are: listed renamed, and callable under the name listed
const DOTTED = 'deploy.prod';
const LONG = `ops-${'a'.repeat(70)}`;

const toolYaml = (name: string): string =>
  [`name: ${name}`, 'display: Deploy', 'intent: deploy the product to production servers', 'method: run', 'executor: shell', 'params_schema: {}', `shell: { argv: [echo, "ran ${name}"] }`, 'author: TEST-001', 'created: 2026-12-02', 'why: tests need it', ''].join('\n');

let base: string;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  const temp = await makeTempDir('hldp-listed-names-');
  cleanups.push(temp.cleanup);
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { [`tools/${DOTTED}/TOOL.hdlp`]: toolYaml(DOTTED), [`tools/${LONG}/TOOL.hdlp`]: toolYaml(LONG) });
  const started = await startSessionServer(repo);
  cleanups.push(started.close);
  base = started.server.url;
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function openSession(): Promise<string> {
  const opened = await api(base, 'POST', '/v1/sessions');
  expect(opened.status).toBe(201);
  return opened.body.id as string;
}

const nameOf = (tool: { name?: string; function?: { name: string } }): string => tool.name ?? tool.function!.name;

describe('GET /v1/sessions/:id/tools and POST /v1/call in the session', () => {
  describe.each(['mcp', 'openai', 'anthropic'])('when the tools are listed as format=%s', (format) => {
    it('lists every name within the format’s limit, and each listed name calls its registry tool, directly and through tool_call (found in review)', async () => {
      const session = await openSession();
      const listed = await api(base, 'GET', `/v1/sessions/${session}/tools?format=${format}`);
      expect(listed.status).toBe(200);
      const names = (listed.body.tools as Array<{ name?: string; function?: { name: string } }>).map(nameOf);
      const limit = format === 'mcp' ? 128 : 64;
      for (const name of names) expect(name).toMatch(new RegExp(`^[A-Za-z0-9_-]{1,${limit}}$`));
      const dotted = names.find((name) => name.startsWith('deploy_prod_'))!;
      const long = names.find((name) => name.startsWith('ops-'))!;
      for (const [name, registryName] of [[dotted, DOTTED], [long, LONG]] as const) {
        const direct = await api(base, 'POST', '/v1/call', { session, body: { tool: name, params: {} } });
        expect(direct).toMatchObject({ status: 200, body: { ok: true, tool: registryName, output: `ran ${registryName}\n` } });
        const meta = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_call', params: { name, params: {} } } });
        expect(meta).toMatchObject({ status: 200, body: { ok: true, tool: registryName, output: `ran ${registryName}\n` } });
      }
      // listed name → registry name, as hldp export --json gives it
      expect(listed.body.names).toMatchObject({ [dotted]: DOTTED, [long]: LONG });
    });
  });

  describe('when tool_load is given a listed name', () => {
    it('loads its registry tool, over HTTP and over MCP (found in review)', async () => {
      const session = await openSession();
      const listed = await api(base, 'GET', `/v1/sessions/${session}/tools`);
      const dotted = (listed.body.tools as Array<{ name: string }>).map((tool) => tool.name).find((name) => name.startsWith('deploy_prod_'))!;
      const loaded = await api(base, 'POST', '/v1/call', { session, body: { tool: 'tool_load', params: { name: dotted } } });
      expect(loaded).toMatchObject({ status: 200, body: { ok: true, loaded: [DOTTED] } });
      const mcp = await connectClient(`${base}/mcp`);
      try {
        const result = await call(mcp.client, 'tool_load', { name: dotted });
        expect(result.isError ?? false).toBe(false);
        expect(textOf(result)).toContain(DOTTED);
      } finally {
        await mcp.close();
      }
    });
  });
});
