// Review Y, Y4: a policy's `glob` condition ran picomatch's backtracking RegExp on the event loop, unmetered:
// `**/secrets/**/*.key` (a plausible deny rule) is quadratic in a path's segments, and one call whose `path` was
// 32,000 x "secrets/" (256 KB, which any model may send) held a real `hldp serve` — its /healthz too — 409 s.
// A path past the kernel's PATH_MAX cannot be judged: the deny rule matches it at once (on the old code neither the
// call nor the /healthz is answered within the test's bound).
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

const guard = (decision: string, glob: string): string =>
  ['name: guard', 'author: TEST-001', 'why: agents never read private keys', 'approval:', '  - tools: [read-note]', `    when: { path: { glob: "${glob}" } }`, `    decision: ${decision}`, '    reason: never read keys', ''].join('\n');

async function serve(policy: string): Promise<string> {
  const repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, { 'tools/read-note/TOOL.hdlp': readNote, 'policies/guard.hdlp': policy });
  return (await home.serve(['--repo', repo])).url;
}

describe('hldp serve, a policy glob against a path of many segments', () => {
  it('denies a 256 KB path of 32,000 x "secrets/" under a deny rule `**/secrets/**/*.key` at once, and answers /healthz', async () => {
    const url = await serve(guard('deny', '**/secrets/**/*.key'));
    const { call, healthz } = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: `${'secrets/'.repeat(32_000)}x` } }));
    expect(healthz).toBe(200);
    expect(call.json).toMatchObject({ ok: false, error: expect.stringContaining('never read keys') });
    // an ordinary path is judged as before: a key is denied, a note is read (and is not there)
    const key = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: 'notes/secrets/a/id.key' } }));
    expect(key.call.json).toMatchObject({ ok: false, error: expect.stringContaining('never read keys') });
    const note = await callWithProbe(url, JSON.stringify({ tool: 'read-note', params: { path: 'notes/secrets/a/id.txt' } }));
    expect(String(note.call.json['error'] ?? '')).not.toContain('never read keys');
  }, 120_000);
});
