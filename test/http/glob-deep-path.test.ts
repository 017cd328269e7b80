// A policy glob with three `**` judged a deep ordinary path "for the wrong reason": its cost was estimated as the
// backtracking RegExp's (cubic in the segments), a 150-segment note path was past the params work budget, and the deny
// rule matched it as a path it could not judge, whatever it held. The glob's RegExp runs as a state machine now,
// linear in the path: the path is judged on the rule (on the old code the call that does not match is denied too).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { callWithProbe } from '../helpers/held-gateway.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const readNote = makeToolYaml('read-note', {
  intent: 'reads a note of the workspace',
  method: 'run',
  executor: 'shell',
  params_schema: "\n  path: {type: string, required: true, description: the note's path}",
  shell: "\n  argv: [cat, '{path}']",
});

const guard = ['name: guard', 'author: TEST-001', 'why: agents never read what is under a secret folder', 'approval:', '  - tools: [read-note]', '    when: { path: { glob: "**/secret/**/x/**" } }', '    decision: deny', '    reason: never read secrets', ''].join('\n');

// 150 segments of an ordinary note tree (1,689 characters), with `secret` and `x` where asked
function notePath(named: Record<number, string> = {}): string {
  return Array.from({ length: 150 }, (_, index) => named[index] ?? `section-${index}`).join('/');
}

describe('hldp serve, a deny rule with three `**` against a 150-segment path', () => {
  it('runs the call whose path the rule does not match, and denies the one it matches with the rule\'s reason', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/read-note/TOOL.hdlp': readNote, 'policies/guard.hdlp': guard });
    const { url } = await home.serve(['--repo', repo]);

    const ordinary = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: notePath() } }));
    expect(ordinary.call.status).toBe(200);
    // the tool ran: `cat` found no such note, and the policy had nothing to say
    expect(ordinary.call.json).toMatchObject({ ok: false });
    expect(String(ordinary.call.json['error'])).not.toContain('never read secrets');
    expect(String(ordinary.call.json['error'])).toContain('No such file');

    const secret = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: notePath({ 20: 'secret', 100: 'x' }) } }));
    expect(secret.call.json).toMatchObject({ ok: false, error: expect.stringContaining('never read secrets') });
    // `x` before `secret` is not what the rule names
    const reversed = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: notePath({ 20: 'x', 100: 'secret' }) } }));
    expect(String(reversed.call.json['error'])).not.toContain('never read secrets');
    expect(secret.healthz).toBe(200);
  }, 120_000);
});
