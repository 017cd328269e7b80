import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();

// the params GOOD's conditions name: a condition on a param no tool of its rule takes refuses the policy (review userZ9, U9-12)
const TOOLS = {
  'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { group: 'letters', params_schema: '{ cmd: { type: string } }' }),
  'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', aliases: '[bee]', params_schema: '{ path: { type: string } }' }),
};

/** A policy file's text: the header and then `body` (YAML lines). */
function policy(name: string, body: string): string {
  return `name: ${name}\nauthor: TEST-001\nwhy: tests need ${name}\n${body}`;
}

const GOOD = policy('writes', [
  'access:',
  '  - tools: [letters]',
  '    roles: [trusted]',
  'approval:',
  '  - tools: [bee]',
  '    when: { path: { glob: "agent/**" } }',
  '    decision: allow',
  '  - tools: ["*"]',
  '    when: { cmd: { regex: "rm\\\\s+-rf\\\\s+/" } }',
  '    decision: deny',
  '    reason: never remove the root',
].join('\n'));

describe('policies/*.hdlp in the index', () => {
  it.each(['git', 'folder'])('are scanned beside tools at the same commit, with each rule\'s place (%s source)', async (kind) => {
    const root = join(folder.path, 'repo');
    const files = { ...TOOLS, 'policies/writes.hdlp': GOOD, 'policies/README.md': 'not a policy' };
    let commit: string | undefined;
    if (kind === 'git') {
      await initRepository(root);
      commit = await commitFiles(root, files);
    } else await writeFiles(root, files);
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    if (commit) expect(index.commit).toBe(commit);
    expect(index.errors).toEqual([]);
    expect(index.policies).toEqual([
      expect.objectContaining({
        name: 'writes',
        source: expect.objectContaining({ path: 'policies/writes.hdlp' }),
        access: [expect.objectContaining({ tools: ['letters'], roles: ['trusted'], at: { line: 5, column: 5 } })],
        approval: [
          expect.objectContaining({ tools: ['bee'], decision: 'allow', at: { line: 8, column: 5 } }),
          expect.objectContaining({ tools: ['*'], decision: 'deny', reason: 'never remove the root', at: { line: 11, column: 5 } }),
        ],
      }),
    ]);
  });

  it.each([
    ['an unknown field', policy('p', 'approval:\n  - tools: [alpha]\n    decison: allow\n'), 6, 5, /unknown field 'approval.0.decison'/],
    ['a name unlike its file', policy('other', ''), 1, 7, /'name' is 'other' but the file is 'p.hdlp'/],
    ['a tool the registry lacks, with near names', policy('p', 'approval:\n  - tools: [alpah]\n    decision: deny\n'), 5, 13, /names 'alpah', which is neither a tool nor a group of this registry; did you mean 'alpha'\?/],
    ['a look-ahead RE2 cannot run in linear time', policy('p', 'approval:\n  - tools: [alpha]\n    when: { cmd: { regex: "a(?=b)" } }\n    decision: deny\n'), 6, 27, /not linear-time RE2 syntax/],
    ['self_approval on a rule that does not approve', policy('p', 'approval:\n  - tools: [alpha]\n    decision: allow\n    self_approval: true\n'), 7, 5, /'self_approval' applies only to decision approve/],
    ['YAML that does not parse', 'name: p\nauthor: [unclosed\n', 3, 1, /./],
  ])('report %s at file:line:col, and leave the policy out', async (_case, text, line, column, message) => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { ...TOOLS, 'policies/p.hdlp': text });
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.policies).toEqual([]);
    expect(index.errors).toContainEqual(expect.objectContaining({ file: 'policies/p.hdlp', line, column, severity: 'error', message: expect.stringMatching(message) }));
    expect(index.errors.every((error) => error.file === 'policies/p.hdlp')).toBe(true);
  });

  it('know a tool whose own definition is broken, so one broken tool does not break a policy', async () => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { ...TOOLS, 'tools/gamma/TOOL.hdlp': 'name: gamma\n', 'policies/p.hdlp': policy('p', 'approval:\n  - tools: [gamma]\n    decision: deny\n') });
    const index = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(index.policies?.map((entry) => entry.name)).toEqual(['p']);
    expect(new Set(index.errors.map((error) => error.file))).toEqual(new Set(['tools/gamma/TOOL.hdlp']));
  });

  it('refuse a policy that is a symlink, in git as in a folder', async () => {
    const root = join(folder.path, 'repo');
    await initRepository(root);
    await writeFiles(root, { ...TOOLS, 'elsewhere.hdlp': GOOD });
    await writeFiles(root, { 'policies/.keep': '' });
    await symlink('../elsewhere.hdlp', join(root, 'policies', 'writes.hdlp'));
    await commitFiles(root, {});
    const fromGit = await scanOnce(root, { cacheDir: folder.cacheDir });
    expect(fromGit.errors).toEqual([expect.objectContaining({ file: 'policies/writes.hdlp', code: 'NOT_A_FILE' })]);
  });
});

describe('hldp validate on policies', () => {
  it('lints a policy given alone, against every tool of its repository, and exits 1', async () => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { ...TOOLS, 'policies/p.hdlp': policy('p', 'approval:\n  - tools: [letters, alpah]\n    decision: deny\n') });
    const run = await runCli(['validate', join(root, 'policies', 'p.hdlp')], { cwd: folder.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("repo/policies/p.hdlp:5:22: error: policy 'p' names 'alpah'");
  });

  it('passes a repository whose policies are sound', async () => {
    const root = join(folder.path, 'repo');
    await writeFiles(root, { ...TOOLS, 'policies/writes.hdlp': GOOD });
    const run = await runCli(['validate', root]);
    expect(run.stderr).toContain('3 file(s)');
    expect(run.code).toBe(0);
  });

  // Review K, S1 and S5: rules the gateway reads as written, but that turn a confirmation off or let the caller approve
  describe('when a rule turns a confirmation off, or lets the calling agent approve through elicitation', () => {
    it('warns at each such rule and still exits 0', async () => {
      const root = join(folder.path, 'repo');
      const confirmed = (name: string) => makeToolYaml(name, { constraints: '{ require_confirm: true }' });
      const rules = policy('loose', [
        'approval:',
        '  - tools: [delta]', // 5: every call of delta ends here: no later rule reaches it
        '    decision: deny',
        '  - tools: [gamma, alpha]', // 7
        '    callers: { roles: [trusted] }',
        '    decision: allow',
        '  - tools: [beta]', // 10
        '    decision: approve',
        '    elicit: true',
        '  - tools: [alpha]', // 13: the caller may approve anyway: nothing to warn of
        '    decision: approve',
        '    elicit: true',
        '    self_approval: true',
        '  - tools: ["*"]', // 17
        '    decision: allow',
      ].join('\n'));
      await writeFiles(root, { ...TOOLS, 'tools/gamma/TOOL.hdlp': confirmed('gamma'), 'tools/delta/TOOL.hdlp': confirmed('delta'), 'policies/loose.hdlp': rules });
      const run = await runCli(['validate', join(root, 'policies', 'loose.hdlp'), '--json'], { cwd: folder.path });
      expect(run.code).toBe(0);
      const { errors, warnings } = JSON.parse(run.stdout) as { errors: unknown[]; warnings: Array<{ file: string; line: number; code: string; message: string }> };
      expect(errors).toEqual([]);
      expect(warnings.map(({ line, code }) => [line, code])).toEqual([
        [7, 'ALLOW_SKIPS_CONFIRMATION'],
        [17, 'ALLOW_SKIPS_CONFIRMATION'],
        [10, 'ELICIT_AS_CALLER'],
      ]);
      expect(warnings[0]!.message).toBe(
        "this allow rule covers 'gamma', which declares require_confirm: true: a matching rule is decided before a tool's require_confirm, so the calls it matches run it unconfirmed; to keep the confirmation, leave such tools out of the rule or decide approve with self_approval: true",
      );
      expect(warnings[1]!.message).toMatch(/^this allow rule covers 'gamma', which declares require_confirm: true: .* so every call of it runs unconfirmed/);
      expect(warnings[2]!.message).toMatch(/^elicit: true lets the human at the calling MCP client approve, while self_approval is not given \(false\): an agent that drives its own MCP client answers the elicitation itself, which is self-approval/);
      const text = await runCli(['validate', root], { cwd: folder.path });
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/repo\/policies\/loose\.hdlp:7:\d+: warning: this allow rule covers 'gamma'/);
      expect(text.stderr).toContain('0 error(s), 3 warning(s)');
    });
  });
});
