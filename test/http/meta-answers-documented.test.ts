// Review userZ11, U11-17: in a session, POST /v1/call answers a meta-tool by name (toolset, tool_find, tool_load,
// read_skill, ...), and its 200 body ({ok, tool, message, ...}) fitted neither schema the OpenAPI document gave for
// that status (a receipt, or a match): a client generated from the document failed to read the answer an agent gets
// most. A real `hldp serve` of the starter tools is asked each meta-tool in a session, and every answer, refusals
// included, must fit the schema its status is documented with.
import { describe, expect, it } from 'vitest';
import { expectDocumented, request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('hldp serve, a session calling the meta-tools over POST /v1/call', () => {
  it('answers each with a body its status documents', async () => {
    const server = await home.serve();
    const opened = await request(server, 'POST', '/v1/sessions');
    const session = opened.headers.get('x-hldp-session')!;
    expect(session).toBeTruthy();
    const calls: Array<[string, Record<string, unknown>]> = [
      ['toolset', { action: 'list' }],
      ['toolset', { action: 'enable', name: 'no-such-toolset' }],
      ['tool_find', { intent: '查看最近的提交记录' }],
      ['tool_find', { intent: 'book a flight to the moon for my cat' }],
      ['tool_load', { name: 'git-ops' }],
      ['tool_load', { name: 'no-such-tool' }],
      ['read_skill', { name: 'no-such-skill' }],
      ['tool_call', { name: 'shell-exec', params: { command: 'echo hi' } }],
    ];
    const statuses: number[] = [];
    for (const [tool, params] of calls) {
      const answer = await request(server, 'POST', '/v1/call', { body: { tool, params }, headers: { 'x-hldp-session': session } });
      expectDocumented('/v1/call', 'post', answer);
      statuses.push(answer.status);
    }
    // the answers asked for include successes and refusals alike
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(4);
    expect(statuses.some((status) => status >= 400)).toBe(true);
  });
});
