import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { useServiceHome } from '../helpers/serve-process.js';

// review userZ5, F5: with a broken policy, `hldp serve`'s start listed the file among the dropped definitions and said
// nothing of the consequence — every call refused — which an author learnt only from a first call's 403.

const home = useServiceHome('warn');

// a rule naming a tool the repository lacks cannot be judged: the policy is out, and every call is refused
const BROKEN = 'name: guard\nauthor: TEST-001\nwhy: agents never delete files\napproval:\n  - tools: [rm-fiel]\n    decision: deny\n    reason: no deleting\n';

describe('hldp serve over a registry whose policy is broken', () => {
  it('says at start that every call is refused while it is out, naming the file', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' }), 'policies/guard.hdlp': BROKEN });
    const server = await home.serve(['--repo', repo]);
    expect(server.stderr()).toMatch(/hldp: the policy policies\/guard\.hdlp cannot be read \(policies\/guard\.hdlp:\d+:\d+: .*\); every call is refused until it is fixed/);
    const called = await fetch(`${server.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'greet', params: {} }) });
    expect(called.status).toBe(403);
  }, 120_000);
});
