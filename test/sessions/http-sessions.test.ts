import { afterEach, describe, expect, it } from 'vitest';
import { api, META, startSessionServer } from './support.js';

// Acceptance of issue #13 over plain HTTP: POST /v1/sessions, then X-HLDP-Session, against a real gateway.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function serve(options: Parameters<typeof startSessionServer>[1] = {}) {
  const started = await startSessionServer('native-repo', options);
  cleanups.push(started.close);
  const base = started.server.url;
  const open = async (toolsets?: string[]): Promise<string> => {
    const opened = await api(base, 'POST', '/v1/sessions', toolsets ? { body: { toolsets } } : {});
    expect(opened.status).toBe(201);
    return opened.body.id as string;
  };
  const names = async (session: string): Promise<string[]> => (await api(base, 'GET', `/v1/sessions/${session}/tools`)).body.tools.map((tool: { name: string }) => tool.name);
  const callIn = (session: string, tool: string, params: Record<string, unknown> = {}) => api(base, 'POST', '/v1/call', { session, body: { tool, params } });
  return { ...started, base, open, names, callIn };
}

const TEN_MINUTES = 10 * 60_000;

describe('HTTP sessions', () => {
  describe('when a session is opened with toolsets: [repo]', () => {
    it('lists only that toolset plus the meta-tools, in MCP or provider shapes', async () => {
      const { base, open, names } = await serve();
      const session = await open(['repo']);
      expect(await names(session)).toEqual([...META, 'file-read', 'file-write', 'git-ops']);
      const openai = await api(base, 'GET', `/v1/sessions/${session}/tools?format=openai`);
      expect(openai.body.tools[0]).toMatchObject({ type: 'function', function: { name: 'toolset' } });
    });

    it('refuses an unknown toolset with 404 and the ones there are', async () => {
      const { base } = await serve();
      const opened = await api(base, 'POST', '/v1/sessions', { body: { toolsets: ['nope'] } });
      expect(opened).toMatchObject({ status: 404, body: { code: 'TOOLSET_NOT_FOUND', error: 'no toolset nope; available: ops, repo' } });
    });

    it('names the toolset a typo meant, as an unknown tool is (review userZ5, F11)', async () => {
      const { base, open, callIn } = await serve();
      const opened = await api(base, 'POST', '/v1/sessions', { body: { toolsets: ['rpeo'] } });
      expect(opened).toMatchObject({ status: 404, body: { code: 'TOOLSET_NOT_FOUND', error: "no toolset rpeo (did you mean 'repo'?); available: ops, repo" } });
      const enabled = await callIn(await open(['repo']), 'toolset', { action: 'enable', name: 'opps' });
      expect(enabled).toMatchObject({ status: 404, body: { code: 'TOOLSET_NOT_FOUND', error: "no toolset opps (did you mean 'ops'?); available: ops, repo" } });
      const read = await callIn(await open(['repo']), 'read_skill', { name: 'repository-histroy' });
      expect(read.body).toMatchObject({ code: 'SKILL_NOT_FOUND', error: "no skill repository-histroy (did you mean 'repository-history'?); available: repository-history, server-ops" });
    });
  });

  describe('when the session enables another toolset', () => {
    it('says the tools changed and lists them, with their arguments in the answer', async () => {
      const { open, names, callIn } = await serve();
      const session = await open(['repo']);
      const enabled = await callIn(session, 'toolset', { action: 'enable', name: 'ops' });
      expect(enabled.status).toBe(200);
      expect(enabled.headers.get('x-hldp-tools-changed')).toBe('true');
      expect(enabled.body).toMatchObject({ ok: true, tool: 'toolset', toolset: 'ops', status: 'enabled', tools: [expect.stringMatching(/^http-request\(/), expect.stringMatching(/^shell-exec\(cmd, cwd\?\)/)] });
      expect(await names(session)).toEqual([...META, 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      const unknown = await callIn(session, 'toolset', { action: 'enable', name: 'media' });
      expect(unknown).toMatchObject({ status: 404, body: { code: 'TOOLSET_NOT_FOUND', error: 'no toolset media; available: ops, repo' } });
    });
  });

  describe('when a tool is called through tool_call', () => {
    it('runs it in the session without listing anything first', async () => {
      const { open, callIn } = await serve();
      const session = await open(['repo']);
      await callIn(session, 'toolset', { action: 'enable', name: 'ops' });
      const ran = await callIn(session, 'tool_call', { name: 'shell-exec', params: { cmd: 'echo over http' } });
      // the whole receipt in the message: a failed run says its code and raw error (it failed once, in CI at a91c447)
      expect(ran, JSON.stringify(ran.body)).toMatchObject({ status: 200, body: { ok: true, tool: 'shell-exec', output: 'over http\n' } });
    });
  });

  describe('when two sessions are open', () => {
    it('keeps them apart', async () => {
      const { open, names, callIn } = await serve();
      const [first, second] = [await open(['repo']), await open(['repo'])];
      await callIn(first, 'toolset', { action: 'enable', name: 'ops' });
      expect(await names(first)).toContain('shell-exec');
      expect(await names(second)).not.toContain('shell-exec');
    });
  });

  describe('when time passes (injected clock)', () => {
    it('expires the toolset, and the explanation endpoint says why in one word and one sentence', async () => {
      const { base, open, names, callIn, clock } = await serve();
      const session = await open(['repo']);
      await callIn(session, 'toolset', { action: 'enable', name: 'ops' });
      expect((await api(base, 'GET', `/v1/sessions/${session}/tools/shell-exec`)).body).toEqual({ found: true, tool: 'shell-exec', called_as: 'shell-exec', state: 'visible', reason: "'shell-exec' is in the active toolset 'ops'" });
      clock.advance(TEN_MINUTES + 1);
      expect(await names(session)).toEqual([...META, 'file-read', 'file-write', 'git-ops']);
      expect((await api(base, 'GET', `/v1/sessions/${session}/tools/shell-exec`)).body).toMatchObject({
        state: 'reserved',
        reason: `'shell-exec' is not in the active toolsets ('repo'): call tool_load with {"name": "shell-exec"} or enable toolset 'ops'`,
      });
    });
  });

  describe('when a reserved tool is called directly', () => {
    it('answers 409 CALL_NOT_RUN with the toolset enabled; nothing ran', async () => {
      const { server, open, callIn } = await serve();
      const session = await open(['repo']);
      const substituted = await callIn(session, 'shell-exec', { cmd: 'echo ran' });
      expect(substituted).toMatchObject({ status: 409, body: { code: 'CALL_NOT_RUN', ran: false, tool: 'shell-exec', toolset: 'ops', message: expect.stringContaining("The call to 'shell-exec' has NOT run yet") } });
      expect(substituted.headers.get('x-hldp-tools-changed')).toBe('true');
      expect(await server.gateway.receipts()).toEqual([]);
      expect(await callIn(session, 'shell-exec', { cmd: 'echo ran' })).toMatchObject({ status: 200, body: { ok: true, output: 'ran\n' } });
    });

    it('runs it once under policy run', async () => {
      const { server, open, callIn } = await serve({ sessions: { reservedCalls: 'run' } });
      const session = await open(['repo']);
      const ran = await callIn(session, 'shell-exec', { cmd: 'echo once' });
      expect(ran).toMatchObject({ status: 200, body: { ok: true, output: 'once\n' } });
      expect(ran.headers.get('x-hldp-toolset-enabled')).toBe('ops');
      expect(await server.gateway.receipts()).toHaveLength(1);
    });
  });

  describe('when a tool is loaded with tool_load', () => {
    it('lists it without changing the active toolsets', async () => {
      const { base, open, names, callIn } = await serve();
      const session = await open(['repo']);
      expect(await callIn(session, 'tool_load', { name: 'shell-exec' })).toMatchObject({ status: 200, body: { ok: true, loaded: ['shell-exec'] } });
      expect(await names(session)).toContain('shell-exec');
      expect((await api(base, 'GET', `/v1/sessions/${session}`)).body).toMatchObject({ toolsets: [{ name: 'repo', scope: 'session', expires_at: null }], loaded: [{ name: 'shell-exec' }] });
      // the end of the turn takes it back
      const ended = await api(base, 'POST', `/v1/sessions/${session}/turn`);
      expect(ended.body).toMatchObject({ changed: true, loaded: [] });
      expect(await names(session)).not.toContain('shell-exec');
    });
  });

  describe('when a skill leads to a toolset', () => {
    it('leaves the skill index while that toolset is active, in the session and its prompt block', async () => {
      const { base, open, callIn } = await serve();
      const session = await open();
      expect((await api(base, 'GET', `/v1/sessions/${session}`)).body.skills).toEqual(['repository-history', 'server-ops']);
      expect((await api(base, 'GET', `/v1/sessions/${session}/prompt`)).body.text).toContain('- repository-history — ');
      await callIn(session, 'toolset', { action: 'enable', name: 'repo' });
      expect((await api(base, 'GET', `/v1/sessions/${session}`)).body.skills).toEqual(['server-ops']);
      const block = (await api(base, 'GET', `/v1/sessions/${session}/prompt`)).body.text as string;
      expect(block).not.toContain('repository-history');
      expect(block).toContain('Active toolsets: repo');
      expect((await callIn(session, 'read_skill', { name: 'repository-history' })).body).toMatchObject({ ok: true, message: expect.stringMatching(/^# Reading/) });
    });
  });

  describe('when the prompt block is asked for', () => {
    it('renders the six parts in order, within 2% of the window', async () => {
      const { base, open } = await serve();
      const session = await open(['repo']);
      const { body } = await api(base, 'GET', `/v1/sessions/${session}/prompt?window_tokens=200000`);
      expect(body.budget).toEqual({ chars: 16_000, used: expect.any(Number) });
      const text = body.text as string;
      const order = ['Core tools', 'Toolsets (enable one with toolset):', '- repo [active] — ', 'Tools of the active toolsets:', '- git-ops(', 'Hint (repo):', 'Active toolsets: repo', 'Other tools', '- shell-exec — ', 'Skills'];
      const positions = order.map((part) => text.indexOf(part));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      const tight = await api(base, 'GET', `/v1/sessions/${session}/prompt?chars=150`);
      expect(tight.body.budget.used).toBeLessThanOrEqual(150);
      expect(tight.body.dropped.descriptions + tight.body.dropped.lines).toBeGreaterThan(0);
      expect(tight.body.text).toContain('[active]');
      expect((await api(base, 'GET', `/v1/sessions/${session}/prompt?chars=150`)).body).toEqual(tight.body);
      expect((await api(base, 'GET', `/v1/sessions/${session}/prompt?chars=x`)).status).toBe(400);
    });
  });

  describe('when the rights layer forbids a tool', () => {
    it('refuses a call with 403 and the reason, with or without a session', async () => {
      const { base, open, callIn, server } = await serve({ sessions: { deny: ['shell-exec'] } });
      const session = await open();
      expect(await callIn(session, 'shell-exec', { cmd: 'echo no' })).toMatchObject({ status: 403, body: { code: 'TOOL_FORBIDDEN', state: 'forbidden' } });
      expect(await api(base, 'POST', '/v1/call', { body: { tool: 'shell-exec', params: { cmd: 'echo no' } } })).toMatchObject({ status: 403 });
      expect((await api(base, 'GET', `/v1/sessions/${session}/tools/shell-exec`)).body).toMatchObject({ state: 'forbidden' });
      // nor is it offered by intent
      const matched = await api(base, 'POST', '/v1/match', { body: { intent: '在服务器上执行一条shell命令' } });
      expect(JSON.stringify(matched.body)).not.toContain('shell-exec');
      expect(await server.gateway.receipts()).toEqual([]);
    });
  });

  describe('when a client asks for the catalogues', () => {
    it('lists the toolsets and the skills of the index', async () => {
      const { base } = await serve();
      expect((await api(base, 'GET', '/v1/toolsets')).body.toolsets).toEqual([
        expect.objectContaining({ name: 'ops', tools: ['shell-exec', 'http-request'], path: 'toolsets/ops/TOOLSET.hdlp' }),
        expect.objectContaining({ name: 'repo', tools: ['git-ops', 'file-read', 'file-write'], hint: expect.any(String) }),
      ]);
      expect((await api(base, 'GET', '/v1/skills')).body.skills).toEqual([
        expect.objectContaining({ name: 'repository-history', toolset: 'repo' }),
        expect.objectContaining({ name: 'server-ops', toolset: 'ops' }),
      ]);
    });
  });

  describe('when the session is unknown', () => {
    it('answers 404 saying how to open one', async () => {
      const { base } = await serve();
      expect(await api(base, 'POST', '/v1/call', { session: 'nope', body: { tool: 'toolset', params: {} } })).toMatchObject({ status: 404, body: { code: 'SESSION_NOT_FOUND', error: expect.stringContaining('POST /v1/sessions') } });
      expect((await api(base, 'GET', '/v1/sessions/nope/prompt')).status).toBe(404);
    });
  });
});
