import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { api, startPolicyGateway, TOKENS, type PolicyGateway } from '../policy/support.js';
import { mcpToolYaml, nodeServer } from './support.js';

// One MCP server process serves every principal's calls, and servers log the calls they serve on stderr. The tail of
// that stderr went into the receipt of whichever caller's call saw the server die: bob read alice's arguments
// (review S, S6). A real `hldp serve`, principals alice and bob, a real stdio server that logs and crashes.
const LOGGING = fileURLToPath(new URL('./fixtures/logging-server.mjs', import.meta.url));

const PRINCIPALS = `principals:
  bot: { roles: [agent] }
  alice: { roles: [agent] }
  bob: { roles: [agent], token_sha256: ${hashToken(TOKENS.bob)} }
  lead: { roles: [agent], token_sha256: ${hashToken(TOKENS.lead)} }
`;

let gateway: PolicyGateway;
beforeAll(async () => {
  gateway = await startPolicyGateway(
    {
      'tools/echo/TOOL.hdlp': mcpToolYaml('echo', 'logging', 'echo', '{ message: { type: string, required: true } }'),
      'tools/crash/TOOL.hdlp': mcpToolYaml('crash', 'logging', 'crash', '{}'),
    },
    {
      principals: PRINCIPALS,
      config: stringify({ mcp_servers: { logging: nodeServer(LOGGING) } }),
      // the fixture is read where the checkout is: as root, the server runs as root, as mcp-executor's tests do
      ...(process.getuid?.() === 0 ? { env: { HLDP_SANDBOX_RUN_AS: 'root' } } : {}),
    },
  );
});
afterAll(() => gateway?.stop());

const call = (who: 'alice' | 'bob', tool: string, params: Record<string, unknown>) => api(gateway.url, 'POST', '/v1/call', { who, body: { tool, params } });

describe('a shared MCP server that dies (review S, S6)', () => {
  it("does not show one principal the stderr that logged another principal's call", async () => {
    expect((await call('alice', 'echo', { message: 'ALICE-PRIVATE: salary of carol is 123k' })).body).toMatchObject({ ok: true });
    const crashed = await call('bob', 'crash', {});
    expect(crashed.body).toMatchObject({ ok: false, code: 'CONNECTION_FAILED', caller: 'bob' });
    expect(JSON.stringify(crashed.body)).not.toContain('ALICE-PRIVATE');
    expect(crashed.body.error).toContain("Its stderr is not shown: the server also served other principals' calls");
  });

  it('still shows a principal the stderr of a server that served only its calls', async () => {
    // the crash above ended that process: the next call starts a fresh one, which serves bob alone
    expect((await call('bob', 'echo', { message: 'BOB-OWN-NOTE' })).body).toMatchObject({ ok: true });
    const crashed = await call('bob', 'crash', {});
    expect(crashed.body).toMatchObject({ ok: false, code: 'CONNECTION_FAILED' });
    expect(crashed.body.error).toContain('Its stderr ended with:');
    expect(crashed.body.error).toContain('[info] tools/call echo {"message":"BOB-OWN-NOTE"}');
  });
});
