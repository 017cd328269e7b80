import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, policyRepository, PRINCIPALS_YAML, startGateway, TOKENS } from '../policy/support.js';

// Review userZ4, F6: with principals configured the starter http-request (apis.default, this gateway's own API) got 401
// on every route but /healthz, and the obvious fix, HLDP_API_DEFAULT_TOKEN set to an approver's token, let every agent
// allowed http-request read as that approver: bot read boss's receipts through it. `hldp serve` now warns at start when
// an apis target presents the token of an admin or approver (compared by SHA-256; the token is never printed). Real
// `hldp serve` processes over a real git repository.

const READER_TOKEN = 'reader-token-0123456789abcdef';
let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;

beforeAll(async () => {
  ({ repo, temp } = await policyRepository({}));
}, 120_000);
afterAll(async () => {
  await temp?.cleanup();
});

// one gateway at a time over the test's data folder: each is stopped once it has started and answered /healthz
async function serve(apiToken: string): Promise<{ stderr: string; health: number }> {
  const started = await startGateway(repo, temp.path, {
    principals: `${PRINCIPALS_YAML}  reader: { roles: [agent], tools: [] }\n`,
    env: { HLDP_PRINCIPAL_READER_TOKEN: READER_TOKEN, HLDP_API_DEFAULT_TOKEN: apiToken, HLDP_API_DEFAULT_URL: 'http://127.0.0.1:9' },
    logLevel: 'warn',
  });
  try {
    // the gateway serves all the same: a warning, not a refusal
    const health = (await api(started.url, 'GET', '/healthz')).status;
    return { stderr: started.service.stderr(), health };
  } finally {
    await started.service.stop();
  }
}

describe('hldp serve, an apis target given a principal\'s token', () => {
  it('warns at start when it is an approver\'s, naming the target and the principal, never the token', async () => {
    const { stderr, health } = await serve(TOKENS.alice);
    expect(stderr).toContain("hldp: WARNING: apis.default presents the token of principal 'alice' (roles approver): every agent allowed a tool that calls it (the starter http-request calls apis.default) acts as principal 'alice' through it");
    expect(stderr).toContain('give apis.default the token of a principal of its own with the least rights');
    expect(stderr).not.toContain(TOKENS.alice);
    expect(health).toBe(200);
  });

  it('warns when it is api_token\'s (an admin)', async () => {
    const { stderr } = await serve(TOKENS.admin);
    expect(stderr).toContain("hldp: WARNING: apis.default presents the token of principal 'admin' (roles admin; api_token)");
    expect(stderr).not.toContain(TOKENS.admin);
  });

  it('says nothing of a principal of its own with the agent role alone', async () => {
    const { stderr } = await serve(READER_TOKEN);
    expect(stderr).not.toMatch(/presents the token of/);
  });
});
