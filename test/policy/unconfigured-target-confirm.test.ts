import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { callTool, connectStdio, firstText, type Connected } from '../mcp-front/support.js';

// Review userZ7, F14: a require_confirm tool whose target is not configured (a git-forgejo tool with no forgejo: block,
// an hldp-api tool naming an API the config does not declare) gave its caller a confirmation token, and failed
// EXECUTOR_MISCONFIGURED only once the person had confirmed; a tool a policy sends for approval filed a request an
// approver was asked to decide. Now each is answered as a call that needs no one is, with nothing filed.

const FILES: Record<string, string> = {
  'tools/create-ticket/TOOL.hdlp': makeToolYaml('create-ticket', {
    executor: 'git-forgejo', method: 'create_issue', params_schema: '{ title: { type: string, required: true } }', forgejo: '{ repo: team/tracker }', constraints: '{ require_confirm: true }',
  }),
  'tools/weather-alert/TOOL.hdlp': makeToolYaml('weather-alert', {
    executor: 'hldp-api', method: 'post', params_schema: '{ city: { type: string, required: true } }', http: '{ method: POST, path: /alerts, body: [city], api: weather }', constraints: '{ require_confirm: true }',
  }),
  // no require_confirm of its own: the policy below sends every call of it for approval
  'tools/file-ticket/TOOL.hdlp': makeToolYaml('file-ticket', {
    executor: 'git-forgejo', method: 'create_issue', params_schema: '{ title: { type: string, required: true } }', forgejo: '{ repo: team/tracker }',
  }),
  // configured (the shell runs here): still asks first
  'tools/guarded-echo/TOOL.hdlp': makeToolYaml('guarded-echo', { executor: 'shell', method: 'run', shell: '{ argv: [echo, guarded] }', constraints: '{ require_confirm: true }' }),
  'policies/tickets.hdlp': ['name: tickets', 'author: TEST-001', 'why: a person reads every ticket first', 'approval:', '  - tools: [file-ticket]', '    decision: approve', '    approvers: { roles: [approver] }', ''].join('\n'),
};

/** The calls that cannot run here, and what their refusal names. */
const UNCONFIGURED: Array<[string, Record<string, unknown>, RegExp]> = [
  ['create-ticket', { title: 'the build is red' }, /acts on Forgejo, but no instance is configured; set forgejo\.url and forgejo\.token/],
  ['weather-alert', { city: 'Oslo' }, /no API 'weather' is configured.*declare it in the gateway config file/],
  ['file-ticket', { title: 'the build is red' }, /acts on Forgejo, but no instance is configured/],
];

let folder: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  folder = await makeTempDir('hldp-f14-');
  repo = join(folder.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, FILES, 'tools whose targets are not configured');
  await mkdir(join(folder.path, 'workspace'));
  env = { HLDP_CACHE_DIR: join(folder.path, 'cache'), HLDP_DATA_DIR: join(folder.path, 'data'), HLDP_WORKSPACE: join(folder.path, 'workspace'), HLDP_POLL_INTERVAL_MS: '600000' };
}, 60_000);
afterAll(() => folder?.cleanup());

describe('a call whose target is not configured, over POST /v1/call', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await spawnService(['serve', '--port', '0', '--repo', repo], env, / at (http:\/\/[\d.:]+)\n/);
  }, 120_000);
  afterAll(() => service?.stop());

  const post = async (path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${service.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: await response.json() };
  };

  it.each(UNCONFIGURED)('%s is answered EXECUTOR_MISCONFIGURED at once, as a call needing no confirmation, and nothing is filed', { timeout: 60_000 }, async (tool, params, reason) => {
    const called = await post('/v1/call', { tool, params });
    expect(called.status, JSON.stringify(called.body)).toBe(200);
    expect(called.body).toMatchObject({ ok: false, tool, code: 'EXECUTOR_MISCONFIGURED', exit_code: null, confirmation: null, approval: null });
    expect(called.body.error).toMatch(reason);
    expect(called.body).not.toHaveProperty('token');
    expect((await post('/v1/approvals?status=all')).body.approvals).toEqual([]);
  });

  it('still asks first for a require_confirm tool that can run here', { timeout: 60_000 }, async () => {
    const called = await post('/v1/call', { tool: 'guarded-echo', params: {} });
    expect(called).toMatchObject({ status: 202, body: { status: 'confirmation_required', token: expect.stringMatching(/^hldp_confirm_/) } });
  });
});

describe('a call whose target is not configured, over hldp mcp (stdio)', () => {
  let connected: Connected;
  beforeAll(async () => {
    connected = await connectStdio(repo);
  }, 120_000);
  afterAll(() => connected?.close());

  it.each(UNCONFIGURED)('tools/call and tool_call of %s fail at once with the reason, offering no confirm', { timeout: 60_000 }, async (tool, params, reason) => {
    for (const result of [await callTool(connected.client, tool, params), await callTool(connected.client, 'tool_call', { name: tool, params })] as CallToolResult[]) {
      expect(result.isError, firstText(result)).toBe(true);
      expect(firstText(result)).toMatch(reason);
      expect(firstText(result)).not.toMatch(/confirm/i);
      expect(result.structuredContent).toMatchObject({ code: 'EXECUTOR_MISCONFIGURED' });
    }
  });
});

describe('a call whose target is not configured, with hldp call', () => {
  it.each(UNCONFIGURED)('%s exits 1 with the reason and no hldp confirm to run', { timeout: 60_000 }, async (tool, params, reason) => {
    const run = await runCli(['call', tool, '--repo', repo, '--params', JSON.stringify(params), '--json'], { cwd: join(folder.path), env });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', confirmation: null });
    expect(receipt.error).toMatch(reason);
    expect(run.stdout + run.stderr).not.toContain('hldp confirm');
  });
});
