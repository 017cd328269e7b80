// A receipt kept the milliseconds of its deadline but not where they came from, so the console guessed it by comparing
// them with the tool's timeout_ms at that commit (console16). Each receipt now records `timeout_from`, wherever the
// deadline is decided: a call over HTTP and MCP, an approval, a confirmation token, the gateway's ceiling. A real
// `hldp serve`, real shell tools, a real policy: the stored receipt (GET /v1/receipts/:id) names the source, and the
// console page says it without "inferred".
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { commitFiles, makeToolYaml } from '../helpers/git.js';
import { startConsoleGateway, tokenSha256, type ConsoleGateway } from '../console/support.js';

const TOKENS = {
  admin: 'deadline-source-admin-token-0123456789',
  bot: 'deadline-source-bot-token-0123456789',
  alice: 'deadline-source-alice-token-0123456789',
} as const;
type Who = keyof typeof TOKENS;
// the ceiling cuts `long`'s own two minutes to one
const CONFIG = `max_call_timeout_ms: 60000
principals:
  bot: { roles: [agent], token_sha256: ${tokenSha256(TOKENS.bot)} }
  alice: { roles: [approver], token_sha256: ${tokenSha256(TOKENS.alice)} }
`;
const POLICY = ['name: says', 'author: TEST-001', 'why: what say prints reaches people', 'approval:', '  - tools: [say]', '    decision: approve', '    reason: what say prints goes to the team channel'].join('\n');

let server: ConsoleGateway;
let adminCookie: string;

beforeAll(async () => {
  server = await startConsoleGateway({
    repository: async (folder) => {
      const repo = await makeConsoleRepository(folder);
      await commitFiles(repo, {
        'policies/says.hdlp': POLICY,
        'tools/quick/TOOL.hdlp': makeToolYaml('quick', { executor: 'shell', method: 'run', shell: '{ argv: [echo, quick] }', constraints: '{ timeout_ms: 5000 }' }),
        'tools/long/TOOL.hdlp': makeToolYaml('long', { executor: 'shell', method: 'run', shell: '{ argv: [echo, long] }', constraints: '{ timeout_ms: 120000 }' }),
      }, 'tools with deadlines of their own, and say behind an approver');
      return repo;
    },
    config: CONFIG, apiToken: TOKENS.admin,
  });
  adminCookie = await signInToConsole(server.url, TOKENS.admin);
}, 120_000);
afterAll(() => server?.stop());

async function api(who: Who, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${TOKENS[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** The receipt as the store keeps it, read back over the API. */
async function stored(id: string): Promise<Record<string, unknown>> {
  const answer = await api('admin', 'GET', `/v1/receipts/${encodeURIComponent(id)}`);
  expect(answer.status).toBe(200);
  return answer.json;
}

/** The text of the receipt page's Deadline row, tags left out. */
async function deadlineShown(id: string): Promise<string> {
  const page = await (await fetch(`${server.url}/console/receipts/${encodeURIComponent(id)}`, { headers: { cookie: adminCookie } })).text();
  const row = /<dt>Deadline<\/dt><dd>([\s\S]*?)<\/dd>/.exec(page);
  expect(row, 'the page has a Deadline row').not.toBeNull();
  return row![1]!.replace(/<[^>]*>/g, '').replace(/&#39;/g, "'").replace(/\s+/g, ' ').trim();
}

/** Calls `tool` as bot over HTTP: the receipt it answered with. */
async function called(tool: string, timeoutMs?: number): Promise<{ id: string }> {
  const answer = await api('bot', 'POST', '/v1/call', { tool, params: {}, ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }) });
  expect(answer.status).toBe(200);
  expect(answer.json.ok).toBe(true);
  return answer.json;
}

/** Files `say` for bot (asking for `askedMs` when given); alice decides it, sending `decidedMs` when given. */
async function decided(decision: 'approve' | 'deny', askedMs?: number, decidedMs?: number): Promise<{ id: string }> {
  const pending = await api('bot', 'POST', '/v1/call', { tool: 'say', params: { text: 'hello team' }, ...(askedMs === undefined ? {} : { timeout_ms: askedMs }) });
  expect(pending.status).toBe(202);
  const answer = await api('alice', 'POST', `/v1/approvals/${pending.json.id}/${decision}`, { reason: 'checked', ...(decidedMs === undefined ? {} : { timeout_ms: decidedMs }) });
  expect(answer.status).toBe(200);
  return answer.json.receipt;
}

describe('where a receipt says its deadline came from (timeout_from)', () => {
  describe('when the call asked for none', () => {
    it.each([
      ['a tool whose constraints set none', 'ok', 30_000, 'default', '30,000 ms — the default 30 s of a tool whose constraints set no timeout_ms (or set 30,000)'],
      ["a tool's own timeout_ms", 'quick', 5_000, 'tool', "5,000 ms — the tool's constraints.timeout_ms"],
      ["a tool's timeout_ms above the gateway's max_call_timeout_ms", 'long', 60_000, 'ceiling', "60,000 ms — the gateway's max_call_timeout_ms, which cut the tool's timeout_ms (120,000 ms)"],
    ])('records %s', async (_case, tool, ms, from, words) => {
      const { id } = await called(tool);
      expect(await stored(id)).toMatchObject({ timeout_ms: ms, timeout_from: from });
      expect(await deadlineShown(id)).toBe(words);
    });
  });

  describe('when the call asked for its own', () => {
    it('records `call` for timeout_ms in POST /v1/call', async () => {
      const { id } = await called('quick', 2_000);
      expect(await stored(id)).toMatchObject({ timeout_ms: 2_000, timeout_from: 'call' });
      const shown = await deadlineShown(id);
      expect(shown).toBe('2,000 ms — asked for by the call (its timeout_ms)');
      expect(shown).not.toContain('inferred');
    });

    it('records `call` for _meta["hldp/timeout_ms"] in an MCP tools/call', async () => {
      const client = new Client({ name: 'deadline-source-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS.bot}` } } }));
      try {
        const result = await client.callTool({ name: 'quick', arguments: {}, _meta: { 'hldp/timeout_ms': 1_500 } });
        const receipt = result.structuredContent as { id: string; ok: boolean };
        expect(receipt.ok).toBe(true);
        expect(await stored(receipt.id)).toMatchObject({ timeout_ms: 1_500, timeout_from: 'call' });
      } finally {
        await client.close();
      }
    });
  });

  describe('when the call went through an approval', () => {
    it("keeps the call's own deadline when the approver sends none", async () => {
      const receipt = await decided('approve', 4_000);
      expect(await stored(receipt.id)).toMatchObject({ timeout_ms: 4_000, timeout_from: 'call', approval: { status: 'approved', decided_by: 'alice' } });
    });

    it("records `approval` for the approver's timeout_ms, and says so on the page", async () => {
      const receipt = await decided('approve', undefined, 3_000);
      expect(await stored(receipt.id)).toMatchObject({ timeout_ms: 3_000, timeout_from: 'approval' });
      expect(await deadlineShown(receipt.id)).toBe('3,000 ms — asked for by who approved it');
    });

    it('gives a denied call the source its request was filed with', async () => {
      const receipt = await decided('deny');
      expect(await stored(receipt.id)).toMatchObject({ ok: false, code: 'DENIED', timeout_ms: 30_000, timeout_from: 'default' });
    });

    it('records `approval` for the timeout_ms sent with a confirmation token', async () => {
      const pending = await api('bot', 'POST', '/v1/call', { tool: 'note', params: { text: 'mine' } });
      expect(pending.status).toBe(202);
      const confirmed = await api('bot', 'POST', '/v1/confirm', { token: pending.json.token, timeout_ms: 2_500 });
      expect(confirmed.json).toMatchObject({ ok: true, timeout_ms: 2_500, timeout_from: 'approval' });
      expect(await stored(confirmed.json.id)).toMatchObject({ timeout_from: 'approval' });
      expect(await deadlineShown(confirmed.json.id)).toBe('2,500 ms — asked for when the caller confirmed it with its token');
    });
  });
});
