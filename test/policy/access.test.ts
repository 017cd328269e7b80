import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { openSse } from '../helpers/sse-client.js';
import { api, echoTool, mcpClient, type PolicyGateway, startPolicyGateway, textOf, TOKENS } from './support.js';

// one real `hldp serve` for the file: principals from the config file and the environment, access rules from the repository
let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({
    // an identity gate in the tool's own definition (seed 003's trusted_only)
    'tools/deploy/TOOL.hdlp': echoTool('deploy', 'access: { roles: [trusted] }'),
    // outside bot's base list, in no gate: only a toolset could bring it, and for bot none may
    'tools/echo-tool/TOOL.hdlp': echoTool('echo-tool'),
    'toolsets/extra/TOOLSET.hdlp': 'name: extra\ndescription: echo things\ntools: [echo-tool, deploy]\nauthor: TEST-001\nwhy: tests\n',
    'policies/team.hdlp': [
      'name: team', 'author: TEST-001', 'why: a shell is for trusted principals',
      'access:', '  - tools: [shell-exec]', '    roles: [trusted]', '    reason: the shell is for trusted principals',
    ].join('\n'),
  });
});
afterAll(() => gateway?.stop());

describe('principals at the HTTP edge', () => {
  it('admits each principal by its token and refuses a missing or wrong one with 401', async () => {
    expect((await api(gateway.url, 'GET', '/v1/receipts')).status).toBe(401);
    expect((await api(gateway.url, 'GET', '/v1/receipts', { token: `${TOKENS.bot}x` })).status).toBe(401);
    // a token that is another's digest is not a token
    expect((await api(gateway.url, 'GET', '/v1/receipts', { token: 'a'.repeat(64) })).status).toBe(401);
    for (const who of ['bot', 'lead', 'alice', 'bob', 'admin'] as const) expect((await api(gateway.url, 'GET', '/v1/receipts', { who })).status).toBe(200);
  });

  it('keeps a session to the principal that opened it', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot' });
    expect(opened.status).toBe(201);
    expect((await api(gateway.url, 'GET', `/v1/sessions/${opened.body.id}`, { who: 'lead' })).status).toBe(404);
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'lead', session: opened.body.id, body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(call.status).toBe(404);
    expect(call.body.code).toBe('SESSION_NOT_FOUND');
  });
});

describe('access rules', () => {
  it('leave a forbidden tool out of that principal\'s tools/list, refuse its call with the reason, and show it to another', async () => {
    const bot = await mcpClient(gateway.url, 'bot');
    const lead = await mcpClient(gateway.url, 'lead', { toolsets: 'extra' });
    try {
      const botTools = (await bot.listTools()).tools.map((tool) => tool.name);
      expect(botTools).toContain('git-ops');
      expect(botTools).not.toContain('deploy');
      expect(botTools).not.toContain('shell-exec');
      const refused = (await bot.callTool({ name: 'deploy', arguments: { text: 'now' } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain("'deploy' is for role trusted or admin (its access block in tools/deploy/TOOL.hdlp); principal 'bot' has roles agent");
      const shell = (await bot.callTool({ name: 'shell-exec', arguments: { cmd: 'echo hi' } })) as CallToolResult;
      expect(textOf(shell)).toContain('the shell is for trusted principals (policies/team.hdlp:5:5)');

      expect((await lead.listTools()).tools.map((tool) => tool.name)).toContain('deploy');
      const ran = (await lead.callTool({ name: 'deploy', arguments: { text: 'now' } })) as CallToolResult;
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toMatchObject({ ok: true, output: 'now\n', caller: 'lead' });
    } finally {
      await bot.close();
      await lead.close();
    }
  });

  it('explain the refusal in one word and one sentence', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot' });
    const explained = await api(gateway.url, 'GET', `/v1/sessions/${opened.body.id}/tools/deploy`, { who: 'bot' });
    expect(explained.body).toMatchObject({ state: 'forbidden', reason: expect.stringContaining('its access block') });
  });

  it('refuse a principal without a calling role every tool', async () => {
    const refused = await api(gateway.url, 'POST', '/v1/call', { who: 'alice', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe("principal 'alice' has roles approver: calling tools needs one of agent, trusted, admin");
  });
});

describe('a toolset in an untrusted session', () => {
  it('cannot widen the base list: the tool stays forbidden, to tool_load and tool_call too', async () => {
    // a toolset holding none of bot's tools is neither opened with nor enabled (review V, V2)
    expect(await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['extra'] } })).toMatchObject({ status: 403, body: { code: 'TOOLSET_FORBIDDEN' } });
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot' });
    const session = opened.body.id;
    const enabled = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'toolset', params: { action: 'enable', name: 'extra' } } });
    expect(enabled).toMatchObject({ status: 403, body: { code: 'TOOLSET_FORBIDDEN', error: expect.stringContaining("toolset 'extra' holds no tool you may call: echo-tool") } });
    const listed = await api(gateway.url, 'GET', `/v1/sessions/${session}/tools`, { who: 'bot' });
    expect(listed.body.tools.map((tool: { name: string }) => tool.name)).not.toContain('echo-tool');
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'echo-tool', params: { text: 'x' } } });
    expect(call.status).toBe(403);
    expect(call.body.reason).toContain("'echo-tool' is not in the tools of principal 'bot' (principals.bot.tools in the config); 'bot' is not trusted, so no toolset, tool_load or tool_call can widen them");
    const viaToolCall = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'tool_call', params: { name: 'echo-tool', params: { text: 'x' } } } });
    expect(viaToolCall.status).toBe(403);
    const loaded = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', session, body: { tool: 'tool_load', params: { name: 'echo-tool' } } });
    expect(loaded.status).toBe(403);
  });

  it('in a trusted session replaces the base list: reserved outside it, visible and runnable in an active toolset', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'lead' });
    const session = opened.body.id;
    expect((await api(gateway.url, 'GET', `/v1/sessions/${session}/tools/echo-tool`, { who: 'lead' })).body).toMatchObject({
      state: 'reserved', reason: expect.stringContaining("not in the base list of principal 'lead'"),
    });
    const enabled = await api(gateway.url, 'POST', '/v1/call', { who: 'lead', session, body: { tool: 'toolset', params: { action: 'enable', name: 'extra' } } });
    expect(enabled.status).toBe(200);
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'lead', session, body: { tool: 'echo-tool', params: { text: 'widened' } } });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ ok: true, output: 'widened\n', caller: 'lead', session });
  });
});

describe('receipts', () => {
  it('record the caller and the session', async () => {
    const plain = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } });
    expect(plain.body).toMatchObject({ caller: 'bot', session: null });
    const stored = await api(gateway.url, 'GET', `/v1/receipts/${plain.body.id}`, { who: 'admin' });
    expect(stored.body).toMatchObject({ caller: 'bot', session: null });
  });

  it('are each shown to their caller and to admins and approvers, never to another principal (found in review)', async () => {
    const made = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'status' } } });
    await api(gateway.url, 'POST', '/v1/call', { who: 'lead', body: { tool: 'git-ops', params: { op: 'status' } } });
    const id = made.body.id as string;
    // lead, another agent, neither reads bot's receipt (the 404 of an id that does not exist) nor finds it in a list
    expect(await api(gateway.url, 'GET', `/v1/receipts/${id}`, { who: 'lead' })).toMatchObject({ status: 404, body: { code: 'RECEIPT_NOT_FOUND' } });
    const leads = (await api(gateway.url, 'GET', '/v1/receipts?limit=1000', { who: 'lead' })).body.receipts as Array<{ id: string; caller: string }>;
    expect(leads.length).toBeGreaterThan(0);
    expect(leads.filter((receipt) => receipt.caller !== 'lead')).toEqual([]);
    // bot reads its own; an approver and an admin read everyone's
    expect((await api(gateway.url, 'GET', `/v1/receipts/${id}`, { who: 'bot' })).body).toMatchObject({ id, caller: 'bot' });
    for (const who of ['alice', 'admin'] as const) {
      expect((await api(gateway.url, 'GET', `/v1/receipts/${id}`, { who })).status).toBe(200);
      const all = (await api(gateway.url, 'GET', '/v1/receipts?limit=1000', { who })).body.receipts as Array<{ caller: string }>;
      expect(all.some((receipt) => receipt.caller === 'bot') && all.some((receipt) => receipt.caller === 'lead')).toBe(true);
    }
  });

  it('and the events never hold a token a caller pastes into the params of a call waiting for a person (found in review)', async () => {
    // approval.requested goes to the store, every instance, the event stream and outgoing webhooks
    const stream = await openSse(`${gateway.url}/v1/events?types=approval.requested`, { authorization: `Bearer ${TOKENS.admin}` });
    try {
      const pending = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'notes.txt', content: `key=${TOKENS.alice}` } } });
      expect(pending.status).toBe(202);
      const requested = JSON.parse((await stream.next((message) => message.event === 'approval.requested' && JSON.parse(message.data).data.approval === pending.body.id)).data);
      expect(requested.data.params).toMatchObject({ path: 'notes.txt', content: 'key=[REDACTED]' });
      expect(JSON.stringify(requested)).not.toContain(TOKENS.alice);
    } finally {
      stream.close();
    }
  });

  it('an agent holds at most 16 event streams open at once; a closed one frees its place, and an admin is not counted (found in review)', async () => {
    // each stream may queue 4 MiB for a reader that does not read: without a bound, one agent's token held any amount
    const streams = [];
    try {
      for (let index = 0; index < 16; index++) streams.push(await openSse(`${gateway.url}/v1/events`, { authorization: `Bearer ${TOKENS.bot}` }));
      expect(streams.map((stream) => stream.status)).toEqual(Array(16).fill(200));
      const refused = await fetch(`${gateway.url}/v1/events`, { headers: { authorization: `Bearer ${TOKENS.bot}` } });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_STREAMS' });
      // another agent and an admin are not held back by bot's streams
      for (const who of ['lead', 'admin'] as const) {
        const other = await openSse(`${gateway.url}/v1/events`, { authorization: `Bearer ${TOKENS[who]}` });
        streams.push(other);
        expect(other.status).toBe(200);
      }
      streams.shift()!.close();
      await expect.poll(async () => {
        const again = await openSse(`${gateway.url}/v1/events`, { authorization: `Bearer ${TOKENS.bot}` });
        streams.push(again);
        return again.status;
      }, { timeout: 10_000 }).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("and the console's event stream counts against the same 16: an agent's token signed in to the console opens no more (found in review E4)", async () => {
    // a second door to the same hub: 60 console streams of one agent were all accepted, each able to queue 4 MiB
    const cookie = await signInToConsole(gateway.url, TOKENS.bot);
    const streams = [];
    try {
      for (let index = 0; index < 10; index++) streams.push(await openSse(`${gateway.url}/v1/events`, { authorization: `Bearer ${TOKENS.bot}` }));
      for (let index = 0; index < 6; index++) streams.push(await openSse(`${gateway.url}/console/events`, { cookie }));
      expect(streams.map((stream) => stream.status)).toEqual(Array(16).fill(200));
      const refused = await fetch(`${gateway.url}/console/events`, { headers: { cookie } });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_STREAMS' });
      expect((await fetch(`${gateway.url}/v1/events`, { headers: { authorization: `Bearer ${TOKENS.bot}` } })).status).toBe(429);
      // a console stream closed frees its place for either door
      streams.pop()!.close();
      await expect.poll(async () => {
        const again = await openSse(`${gateway.url}/v1/events`, { authorization: `Bearer ${TOKENS.bot}` });
        streams.push(again);
        return again.status;
      }, { timeout: 10_000 }).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('and the log never hold a token, even one a caller pastes into its params', async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'lead', body: { tool: 'git-ops', params: { op: 'log', limit: 1, ref: TOKENS.bot } } });
    const text = JSON.stringify(call.body);
    expect(text).toContain('[REDACTED]');
    // the log says who called; its line goes out through the logger's asynchronous writes, so it may come after the
    // answer (in 40 of 150 calls at load 29): the tokens are looked for once this call's line is there
    await expect.poll(() => gateway.service.stderr(), { timeout: 10_000, interval: 20 }).toMatch(new RegExp(`"call_id":"${call.body.id}"[^\n]*"caller":"lead"`));
    for (const token of Object.values(TOKENS)) {
      expect(text).not.toContain(token);
      expect(gateway.service.stderr()).not.toContain(token);
    }
  });
});
