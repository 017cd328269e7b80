import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { api, echoTool, policyRepository, startPolicyGateway, type PolicyGateway } from './support.js';

// Review Z6, Z6-3: a definition's `group` is any pusher's to write, and a list that allows by name also gave every tool
// whose group is that name. A new tool with `group: git-ops` was given to a principal limited to [git-ops, file-read],
// skipped the approval an `allow` rule for git-ops waived, and answered `tool_load git-ops` in git-ops' place.

const PUSHED = (group: string): string => echoTool('repo-helper', `group: ${group}`);
// the group line of the pushed definition: echoTool's twelfth line, after `group: `
const GROUP_AT = { line: 12, column: 8 };

const LIMITED = `principals:
  bot: { roles: [agent], tools: [git-ops, file-read] }
`;

describe('a pushed tool whose group is a reviewed tool\'s name, at a running gateway', () => {
  let gateway: PolicyGateway;
  beforeAll(async () => {
    gateway = await startPolicyGateway({ 'tools/repo-helper/TOOL.hdlp': PUSHED('git-ops') }, { principals: LIMITED });
  }, 180_000);
  afterAll(async () => {
    await gateway?.stop();
  }, 60_000);

  it('is not among the tools of a principal whose tools name git-ops: its call is refused, nothing ran', async () => {
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'repo-helper', params: { text: 'pwned' } } });
    expect(call.body, JSON.stringify(call.body)).toMatchObject({ code: 'TOOL_FORBIDDEN' });
    expect(JSON.stringify(call.body)).not.toContain('"output":"pwned');
    // what the name does give still runs
    const read = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'git-ops', params: { op: 'log', args: ['-1', '--format=%s'] } } });
    expect(read.body.code, JSON.stringify(read.body)).not.toBe('TOOL_FORBIDDEN');
  });

  it('is not what tool_load git-ops loads: git-ops is', async () => {
    const session = (await api(gateway.url, 'POST', '/v1/sessions', { who: 'admin' })).body.id as string;
    const loaded = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', session, body: { tool: 'tool_load', params: { name: 'git-ops' } } });
    expect(loaded.body, JSON.stringify(loaded.body)).toMatchObject({ ok: true, loaded: ['git-ops'] });
  });

  it('is told to its author among the scan\'s warnings, at its group line', async () => {
    const tools = await api(gateway.url, 'GET', '/v1/tools', { who: 'admin' });
    expect(tools.body.warnings).toContainEqual(expect.objectContaining({ file: 'tools/repo-helper/TOOL.hdlp', ...GROUP_AT, code: 'GROUP_NAMES_TOOL', message: expect.stringContaining("group 'git-ops' is also the name of tool 'git-ops'") }));
  });
});

describe('a pushed tool whose group is a reviewed tool\'s name in another letter case, at the CLI', () => {
  const GATE = ['name: gate', 'author: OPS-001', 'why: read-only git is free; everything else needs a person', 'approval:', '  - tools: [git-ops]', '    decision: allow', "  - tools: ['*']", '    decision: approve', '    self_approval: true', '    reason: a person looks first'].join('\n');
  let made: Awaited<ReturnType<typeof policyRepository>>;
  beforeAll(async () => {
    made = await policyRepository({ 'tools/repo-helper/TOOL.hdlp': PUSHED('Git-Ops'), 'policies/gate.hdlp': GATE });
  }, 60_000);
  afterAll(async () => {
    await made?.temp.cleanup();
  });
  const env = (): NodeJS.ProcessEnv => ({ HLDP_CACHE_DIR: join(made.temp.path, 'cache'), HLDP_DATA_DIR: join(made.temp.path, 'data'), HLDP_WORKSPACE: made.temp.path });

  it('does not skip the approval an allow rule for git-ops waives: hldp call waits for a person, nothing ran', async () => {
    const call = await runCli(['call', 'repo-helper', '--repo', made.repo, '--params', '{"text":"pwned"}', '--json'], { env: env(), input: '' });
    expect(call.stdout).not.toContain('pwned\\n');
    expect(call.stdout + call.stderr).toContain('a person looks first');
  });

  it('is a warning of hldp validate at its group line, naming the tool and what the group now means', async () => {
    const validate = await runCli(['validate', 'tools', '--json'], { env: env(), cwd: made.repo });
    expect(validate.code, validate.stderr).toBe(0);
    expect(JSON.parse(validate.stdout).warnings).toContainEqual(expect.objectContaining({ file: 'tools/repo-helper/TOOL.hdlp', ...GROUP_AT, code: 'GROUP_NAMES_TOOL', message: expect.stringContaining("mean 'git-ops' alone, never this tool") }));
  });
});
