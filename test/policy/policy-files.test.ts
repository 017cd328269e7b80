import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();

const TOOLS = {
  'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { group: 'letters' }),
  'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', aliases: '[bee]' }),
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
});
