import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../src/gateway/service/index.js';
import { timeoutNote } from '../../src/gateway/service/call-deadline.js';
import { makeToolDefinition } from '../executors/support/tool-definitions.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { expectDocumented, request, startTestServer } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { callTool, connectHttp, firstText, type HttpConnected } from '../mcp-front/support.js';

// spec §3: "工具执行超时默认30秒——长任务需显式设置timeout" — a long task needs an explicit timeout
const napper = (name: string, constraints: string) =>
  makeToolYaml(name, {
    executor: 'shell',
    method: 'run',
    params_schema: '{ seconds: { type: number, required: true } }',
    shell: '{ argv: [sleep, "{seconds}"] }',
    constraints,
  });

let repo: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    // 300 ms unless a call asks for up to 20 s
    'tools/nap/TOOL.hdlp': napper('nap', '{ timeout_ms: 300, max_timeout_ms: 20000 }'),
    // no max_timeout_ms: a call may only shorten its deadline
    'tools/fixed-nap/TOOL.hdlp': napper('fixed-nap', '{ timeout_ms: 300 }'),
    'tools/guarded-nap/TOOL.hdlp': napper('guarded-nap', '{ timeout_ms: 300, max_timeout_ms: 20000, require_confirm: true }'),
  });
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function receiptOf(outcome: CallOutcome) {
  if (outcome.kind !== 'receipt') throw new Error(`expected a receipt, got ${outcome.kind}: ${JSON.stringify(outcome)}`);
  return outcome.receipt;
}

describe('per-call deadlines', () => {
  describe('when the gateway runs a call (service)', () => {
    it('honours a deadline within max_timeout_ms: the long task completes, and the receipt names its deadline', async () => {
      const { gateway, cleanup } = await openTestGateway(repo);
      cleanups.push(cleanup);
      expect(receiptOf(await gateway.call('nap', { seconds: 1 }))).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, timeout_ms: 300 });
      expect(receiptOf(await gateway.call('nap', { seconds: 1 }, { timeoutMs: 10_000 }))).toMatchObject({ ok: true, code: null, timeout_ms: 10_000 });
    });

    it('refuses a deadline above max_timeout_ms with TIMEOUT_NOT_ALLOWED, running and storing nothing', async () => {
      const { gateway, cleanup } = await openTestGateway(repo);
      cleanups.push(cleanup);
      const outcome = await gateway.call('nap', { seconds: 0 }, { timeoutMs: 20_001 });
      expect(outcome).toMatchObject({ kind: 'timeout_not_allowed', code: 'TIMEOUT_NOT_ALLOWED', tool: 'nap', requested_ms: 20_001, allowed_ms: 20_000 });
      expect(outcome.kind === 'timeout_not_allowed' && outcome.error).toMatch(/constraints.max_timeout_ms = 20000 ms. Ask for at most 20000 ms; nothing ran/);
      const fixed = await gateway.call('fixed-nap', { seconds: 0 }, { timeoutMs: 301 });
      expect(fixed.kind === 'timeout_not_allowed' && fixed.error).toMatch(/sets no constraints.max_timeout_ms, so a call may ask for at most its timeout_ms \(300 ms\)/);
      expect(await gateway.receipts()).toEqual([]);
    });

    it('refuses a deadline above the gateway-wide ceiling even where the tool allows more', async () => {
      const { gateway, cleanup } = await openTestGateway(repo, { HLDP_MAX_CALL_TIMEOUT_MS: '5000' });
      cleanups.push(cleanup);
      const outcome = await gateway.call('nap', { seconds: 0 }, { timeoutMs: 6000 });
      expect(outcome).toMatchObject({ kind: 'timeout_not_allowed', allowed_ms: 5000 });
      expect(outcome.kind === 'timeout_not_allowed' && outcome.error).toMatch(/the gateway's ceiling \(max_call_timeout_ms\) is 5000 ms/);
      expect(receiptOf(await gateway.call('nap', { seconds: 0 }, { timeoutMs: 5000 }))).toMatchObject({ ok: true, timeout_ms: 5000 });
    });

    it('lets a confirmed call ask for its own deadline, and keeps the token when the deadline is refused', async () => {
      const { gateway, cleanup } = await openTestGateway(repo);
      cleanups.push(cleanup);
      const pending = await gateway.call('guarded-nap', { seconds: 1 });
      if (pending.kind !== 'confirmation_required') throw new Error(pending.kind);
      expect(await gateway.confirm(pending.confirmation.token!, { timeoutMs: 999_999 })).toMatchObject({ kind: 'timeout_not_allowed' });
      expect(receiptOf(await gateway.confirm(pending.confirmation.token!, { timeoutMs: 10_000 }))).toMatchObject({ ok: true, timeout_ms: 10_000 });
    });
  });

  describe('when a TIMEOUT receipt names its limit', () => {
    it('says 30 s is the default of a definition that sets none, rather than leaving it to look chosen', () => {
      const tool = makeToolDefinition({ name: 'slow', executor: 'shell', constraints: { timeout_ms: 30_000 } });
      expect(timeoutNote(tool, 30_000, 3_600_000)).toBe(
        " (the limit was 'slow's constraints.timeout_ms (30000 ms, the default when a definition sets none); no call may ask for more: set constraints.max_timeout_ms in its TOOL.hdlp to let calls ask for longer)",
      );
    });
  });

  describe('when the call comes over HTTP', () => {
    it('answers 422 above the ceiling and 200 with the receipt within it', async () => {
      const server = await startTestServer(repo);
      cleanups.push(server.cleanup);
      const refused = await request(server, 'POST', '/v1/call', { body: { tool: 'nap', params: { seconds: 0 }, timeout_ms: 60_000 } });
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({ code: 'TIMEOUT_NOT_ALLOWED', allowed_ms: 20_000 });
      expectDocumented('/v1/call', 'POST', refused);
      const honoured = await request(server, 'POST', '/v1/call', { body: { tool: 'nap', params: { seconds: 1 }, timeout_ms: 10_000 } });
      expect(honoured.status).toBe(200);
      expect(honoured.json).toMatchObject({ ok: true, timeout_ms: 10_000 });
      expectDocumented('/v1/call', 'POST', honoured);
      const malformed = await request(server, 'POST', '/v1/call', { body: { tool: 'nap', params: { seconds: 0 }, timeout_ms: '10s' } });
      expect(malformed.status).toBe(400);
      expect(malformed.json.error).toMatch(/timeout_ms/);
    });
  });

  describe('when the call comes from the CLI', () => {
    // three cold CLI processes, one a test: each has the whole test timeout to itself on a loaded machine
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      const temp = await makeTempDir();
      cleanups.push(temp.cleanup);
      env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
    });

    it('takes --timeout with a unit, and the long task completes under it', async () => {
      const honoured = await runCli(['call', 'nap', '--repo', repo, '--params', '{"seconds":1}', '--timeout', '10s', '--json'], { env });
      expect(honoured.code, honoured.stderr).toBe(0);
      expect(JSON.parse(honoured.stdout)).toMatchObject({ ok: true, timeout_ms: 10_000 });
    });

    it('exits 1 with the reason for a --timeout above the ceiling', async () => {
      const refused = await runCli(['call', 'nap', '--repo', repo, '--params', '{"seconds":0}', '--timeout', '1h'], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/timeout_ms 3600000 is more than this call may ask for.*at most 20000 ms/);
    });

    // review userW, W6: "timed out after 2000 ms" said neither where 2000 came from nor what a call may ask for
    it.each([
      ['the tool\'s timeout_ms, and that a call may ask for up to its max_timeout_ms', 'nap', [], {},
        "(the limit was 'nap's constraints.timeout_ms (300 ms); a call may ask for up to 20000 ms (timeout_ms in POST /v1/call, --timeout in hldp call, _meta[\"hldp/timeout_ms\"] over MCP))"],
      ['the call\'s own deadline', 'nap', ['--timeout', '500'], {},
        "(the limit was this call's own deadline (it asked for 500 ms; 'nap' runs 300 ms when a call asks for none); a call may ask for up to 20000 ms"],
      ['the tool\'s timeout_ms, and that no call may ask for more without a max_timeout_ms', 'fixed-nap', [], {},
        "(the limit was 'fixed-nap's constraints.timeout_ms (300 ms); no call may ask for more: set constraints.max_timeout_ms in its TOOL.hdlp to let calls ask for longer)"],
      ['the gateway\'s ceiling', 'nap', [], { HLDP_MAX_CALL_TIMEOUT_MS: '200' },
        "(the limit was the gateway's max_call_timeout_ms (200 ms), below 'nap's constraints.timeout_ms (300 ms); no call may ask for more: that is the gateway's ceiling (max_call_timeout_ms))"],
    ])('says in a TIMEOUT receipt where the limit came from: %s', async (_case, tool, extra, extraEnv, note) => {
      const run = await runCli(['call', tool, '--repo', repo, '--params', '{"seconds":5}', ...extra, '--json'], { env: { ...env, ...extraEnv } });
      expect(run.code, run.stderr).toBe(1);
      const receipt = JSON.parse(run.stdout) as { code: string; error: string };
      expect(receipt.code).toBe('TIMEOUT');
      expect(receipt.error).toMatch(/^timed out after \d+ ms; the process group was killed \(SIGTERM, then SIGKILL\) /);
      expect(receipt.error).toContain(note);
    });

    it('exits 2 for a --timeout that is no duration', async () => {
      const malformed = await runCli(['call', 'nap', '--repo', repo, '--timeout', 'soon'], { env });
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toMatch(/--timeout must be a positive whole number/);
    });
  });

  describe('when the call comes over MCP', () => {
    let connected: HttpConnected;
    beforeAll(async () => {
      connected = await connectHttp(repo);
      cleanups.push(connected.close);
    });

    it('reads the deadline from _meta["hldp/timeout_ms"]', async () => {
      const honoured = await connected.client.callTool({ name: 'nap', arguments: { seconds: 1 }, _meta: { 'hldp/timeout_ms': 10_000 } });
      expect(honoured).toMatchObject({ structuredContent: { ok: true, timeout_ms: 10_000 } });
      const refused = await connected.client.callTool({ name: 'nap', arguments: { seconds: 0 }, _meta: { 'hldp/timeout_ms': 30_000 } });
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'TIMEOUT_NOT_ALLOWED' } });
      const malformed = await connected.client.callTool({ name: 'nap', arguments: { seconds: 0 }, _meta: { 'hldp/timeout_ms': 'long' } });
      expect(malformed).toMatchObject({ isError: true });
      expect(firstText(malformed as never)).toMatch(/_meta\["hldp\/timeout_ms"\] must be a whole number/);
      expect(await callTool(connected.client, 'nap', { seconds: 1 })).toMatchObject({ isError: true, structuredContent: { code: 'TIMEOUT', timeout_ms: 300 } });
    });
  });
});
