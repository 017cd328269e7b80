// Review userZ10, U10-9: `hldp mcp --repo R` said only "MCP server on stdio" where `hldp serve --repo R` named the
// definitions it dropped and the approve rule no one could decide; U10-8: over MCP such a rule's request was told it
// "waits for role approver or admin to decide it" and to call approval_wait, which then answered "still pending"
// until it expired, where HTTP said "can be decided by no one". One real `hldp mcp` process, as an MCP client runs it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { runWithInput } from './support.js';

const GUARD = ['name: guard', 'author: TEST-001', 'why: a person looks first', 'approval:', '  - tools: [big-output]', '    decision: approve', '    reason: a person looks first', ''].join('\n');

let temp: { path: string; cleanup: () => Promise<void> };
let run: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/big-output/TOOL.hdlp': makeToolYaml('big-output', { executor: 'shell', method: 'run', shell: '{ argv: [echo, big] }' }),
    'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'shell', method: 'run', shell: '{ argv: [echo, broken] }', colour: 'red' }),
    'policies/guard.hdlp': GUARD,
  });
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: '', HLDP_TOKEN: '' };
  run = await runWithInput([
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'big-output', arguments: {} } },
  ], env, ['--repo', repo]);
}, 120_000);
afterAll(() => temp?.cleanup());

describe('hldp mcp --repo R, whose registry drops a definition and holds an approve rule no one can decide', () => {
  it('says both on stderr at start, in the words hldp serve uses, before it serves', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('hldp mcp: 1 definition(s) dropped, not served (hldp validate says the same):\n  tools/broken/TOOL.hdlp:');
    expect(run.stderr).toContain("unknown field 'colour'");
    expect(run.stderr).toMatch(/hldp mcp: WARNING: policies\/guard\.hdlp:5:5: warning: no configured principal is role approver or admin, and self_approval is not true: .*so each can only expire/);
    expect(run.stderr.indexOf('hldp mcp: WARNING:')).toBeLessThan(run.stderr.indexOf('MCP server on stdio'));
  });

  it("answers a call of that rule's tool that no one can decide it, and not to wait for it", () => {
    const answer = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id?: number; result?: { content: Array<{ text: string }>; structuredContent: Record<string, unknown> } }).find((message) => message.id === 2)?.result;
    const text = answer?.content[0]?.text ?? '';
    expect(text).toMatch(/^'big-output' is pending approval: nothing has run\. a person looks first \(policies\/guard\.hdlp:5:5\)\. Request apr_\S+ can be decided by no one: its caller 'local' may not approve it .*no other principal is configured\. Configure a principal who is role approver or admin/);
    expect(text).toContain('nothing runs: do not wait for it');
    expect(text).not.toContain('approval_wait');
    expect(text).not.toContain('waits for role approver or admin');
    expect(answer?.structuredContent).toMatchObject({ status: 'approval_required', message: text, undecidable: expect.stringContaining("its caller 'local' may not approve it") });
  });
});
