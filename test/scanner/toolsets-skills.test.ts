import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder();

/** A minimal valid `TOOLSET.hdlp`. */
function toolsetYaml(name: string, tools: string, extra = ''): string {
  return `name: ${name}\ndescription: work with ${name}\ntools: ${tools}\nauthor: TEST-001\nwhy: tests need ${name}\n${extra}`;
}

/** A minimal valid `SKILL.md`. */
function skillMarkdown(name: string, frontMatter = '', body = 'Do the thing, then check it.'): string {
  return `---\nname: ${name}\ndescription: when asked about ${name}\n${frontMatter}---\n# ${name}\n\n${body}\n`;
}

const TOOLS = {
  'tools/alpha/TOOL.hdlp': makeToolYaml('alpha', { group: 'letters' }),
  'tools/beta/TOOL.hdlp': makeToolYaml('beta', { group: 'letters', aliases: '[bee]' }),
  'tools/gamma/TOOL.hdlp': makeToolYaml('gamma'),
};

describe('Scanner with toolsets and skills', () => {
  describe('when the repository holds all three kinds', () => {
    it('indexes them at the same commit, sorted, each skill linked to its toolset', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      const commit = await commitFiles(repo, {
        ...TOOLS,
        'toolsets/mixed/TOOLSET.hdlp': toolsetYaml('mixed', '[letters, gamma, bee]', 'hint: start with alpha\n'),
        'toolsets/all/TOOLSET.hdlp': toolsetYaml('all', '[]'),
        'skills/mixed/SKILL.md': skillMarkdown('mixed'),
        'skills/lonely/SKILL.md': skillMarkdown('lonely'),
        'skills/pointer/SKILL.md': skillMarkdown('pointer', 'toolset: all\n'),
      });
      const index = await scanOnce(repo, { cacheDir: folder.cacheDir });
      expect(index.commit).toBe(commit);
      expect(index.errors).toEqual([]);
      expect(index.toolsets).toEqual([
        expect.objectContaining({ name: 'all', tools: [] }),
        expect.objectContaining({ name: 'mixed', tools: ['letters', 'gamma', 'bee'], hint: 'start with alpha', source: expect.objectContaining({ path: 'toolsets/mixed/TOOLSET.hdlp' }) }),
      ]);
      expect(index.skills.map((skill) => [skill.name, skill.toolset])).toEqual([['lonely', undefined], ['mixed', 'mixed'], ['pointer', 'all']]);
      expect(index.skills[1]).toMatchObject({ description: 'when asked about mixed', body: '# mixed\n\nDo the thing, then check it.' });
    });
  });

  describe('when a toolset names an unknown tool', () => {
    it('keeps the toolset with its other members and points at the member with the nearest names (review userX, X2)', async () => {
      const root = join(folder.path, 'repo');
      await writeFiles(root, { ...TOOLS, 'toolsets/typo/TOOLSET.hdlp': toolsetYaml('typo', '\n  - alpha\n  - gamm\n') });
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.toolsets).toEqual([expect.objectContaining({ name: 'typo', tools: ['alpha'] })]);
      expect(index.tools).toHaveLength(3);
      expect(index.errors).toEqual([
        expect.objectContaining({
          file: 'toolsets/typo/TOOLSET.hdlp', line: 5, column: 5, code: 'UNKNOWN_MEMBER',
          message: "toolset 'typo' names 'gamm', which is neither a tool nor a group of this registry; did you mean 'gamma'? (the toolset is served with its other members)",
        }),
      ]);
    });
  });

  describe('when a toolset or skill is broken', () => {
    it('isolates it with file:line:col while everything else loads', async () => {
      const root = join(folder.path, 'repo');
      await writeFiles(root, {
        ...TOOLS,
        'toolsets/good/TOOLSET.hdlp': toolsetYaml('good', '[alpha]'),
        'toolsets/bad/TOOLSET.hdlp': toolsetYaml('bad', '[alpha]', 'colour: blue\n'),
        'toolsets/worse/TOOLSET.hdlp': 'name: worse\ndescription: [unclosed\n',
        'skills/fine/SKILL.md': skillMarkdown('fine'),
        'skills/bare/SKILL.md': '# no front matter\n',
        'skills/wrong/SKILL.md': skillMarkdown('wrong', 'toolset: nope\n'),
        'skills/Upper/SKILL.md': skillMarkdown('Upper'),
      });
      const index = await scanOnce(root, { cacheDir: folder.cacheDir });
      expect(index.tools).toHaveLength(3);
      expect(index.toolsets.map((toolset) => toolset.name)).toEqual(['good']);
      expect(index.skills.map((skill) => skill.name)).toEqual(['fine']);
      const where = index.errors.map((error) => `${error.file}:${error.line}:${error.column}: ${error.code}`).sort();
      expect(where).toEqual([
        'skills/Upper/SKILL.md:2:7: SCHEMA_VIOLATION',
        'skills/bare/SKILL.md:1:1: SCHEMA_VIOLATION',
        'skills/wrong/SKILL.md:4:10: UNKNOWN_MEMBER',
        'toolsets/bad/TOOLSET.hdlp:6:1: SCHEMA_VIOLATION',
        expect.stringMatching(/^toolsets\/worse\/TOOLSET.hdlp:\d+:\d+: YAML_SYNTAX$/),
      ]);
      expect(index.errors.find((error) => error.file === 'toolsets/bad/TOOLSET.hdlp')?.message).toMatch(/unknown field 'colour'; allowed: name, description, tools, hint, author, why/);
    });
  });

  describe('when only a skill changes between commits', () => {
    it('re-reads that skill alone and keeps the rest as parsed', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, { ...TOOLS, 'toolsets/mixed/TOOLSET.hdlp': toolsetYaml('mixed', '[letters]'), 'skills/mixed/SKILL.md': skillMarkdown('mixed') });
      const scanner = new Scanner({ repo, cacheDir: folder.cacheDir });
      const first = await scanner.scan();
      await commitFiles(repo, { 'skills/mixed/SKILL.md': skillMarkdown('mixed', '', 'A better body.') });
      const second = await scanner.scan();
      expect(second.commit).not.toBe(first.commit);
      expect(second.skills[0]!.body).toBe('# mixed\n\nA better body.');
      // unchanged entries are the very objects parsed before
      expect(second.toolsets[0]).toBe(first.toolsets[0]);
      expect(second.tools[0]).toBe(first.tools[0]);
      // and a fresh scanner reads the same index from the disk cache
      await scanner.flush();
      expect(await new Scanner({ repo, cacheDir: folder.cacheDir }).scan()).toEqual(second);
    });
  });
});

describe('hldp validate on toolsets and skills', () => {
  it('catches a toolset naming an unknown tool, given the file alone as a pre-commit hook would', async () => {
    await writeFiles(folder.path, { ...TOOLS, 'toolsets/ops/TOOLSET.hdlp': toolsetYaml('ops', '[alpha, deploy]') });
    const run = await runCli(['validate', 'toolsets/ops/TOOLSET.hdlp'], { cwd: folder.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("toolsets/ops/TOOLSET.hdlp:3:16: error: toolset 'ops' names 'deploy', which is neither a tool nor a group of this registry (the toolset is served with its other members)\n");
    expect(run.stderr).toBe('1 file(s) under toolsets/ops/TOOLSET.hdlp: 1 error(s), 0 warning(s)\n');
  });

  it('lints every kind of a repository folder and exits 0 on the starter registry', async () => {
    const run = await runCli(['validate', 'native-repo', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 9, errors: [], warnings: [] });
  });

  it('reports a skill without front matter at 1:1', async () => {
    await writeFiles(folder.path, { 'skills/x/SKILL.md': 'just text\n' });
    const run = await runCli(['validate'], { cwd: folder.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^skills\/x\/SKILL.md:1:1: error: SKILL.md must open with YAML front matter/);
  });
});
