import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-unread-');

const SKILL = '---\nname: s\ndescription: a skill\n---\nbody\n';

/** A tools repository with one good tool and the folders a newcomer gets wrong, committed, as a scan reads it. */
async function repository(): Promise<string> {
  const repo = await initRepository(join(folder.path, 'repo'));
  await commitFiles(repo, {
    'tools/hello/TOOL.hdlp': makeToolYaml('hello'),
    'tools/bye/tool.hdlp': makeToolYaml('bye'),
    'tools/notes/README.md': 'a folder of notes, not a tool\n',
    'skills/s/skill.md': SKILL,
  });
  return repo;
}

// review userU, F1: validate passed tools/bye/tool.hdlp, which the scan never serves (its only trace a scan warning)
describe('hldp validate', () => {
  describe('when a folder under tools/ or skills/ has no definition file', () => {
    it('says what the scan says of it, an error when it holds the definition under another spelling', async () => {
      const repo = await repository();
      const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: repo });
      expect(run.stdout.trim().split('\n')).toEqual([
        "skills/s/:1:1: error: skills/s/ has no SKILL.md, so it is not a skill: it holds 'skill.md', which a scan never reads (it reads SKILL.md only, in those letters); rename it to SKILL.md",
        "tools/bye/:1:1: error: tools/bye/ has no TOOL.hdlp, so it is not a tool: it holds 'tool.hdlp', which a scan never reads (it reads TOOL.hdlp only, in those letters); rename it to TOOL.hdlp",
        'tools/notes/:1:1: warning: tools/notes/ has no TOOL.hdlp, so it is not a tool',
      ]);
      expect(run.code).toBe(1);
      // the scan's own words, which validate's begin with
      const scan = JSON.parse((await runCli(['scan', '--repo', repo, '--json'], { env: folder.cliEnv() })).stdout) as { warnings: Array<{ file: string; code: string; message: string }> };
      const missing = scan.warnings.filter((warning) => warning.code === 'MISSING_DEFINITION');
      expect(missing.map(({ file }) => file).sort()).toEqual(['skills/s/', 'tools/bye/', 'tools/notes/']);
      for (const { file, message } of missing) expect(run.stdout).toContain(`${file}:1:1: ${file === 'tools/notes/' ? 'warning' : 'error'}: ${message}`);
    });
  });

  describe('when given a misnamed definition file by path', () => {
    it('says the scan never reads it, rather than linting it as if it were read', async () => {
      const repo = await repository();
      const run = await runCli(['validate', 'tools/bye/tool.hdlp'], { env: folder.cliEnv(), cwd: repo });
      expect(run.stdout.trim()).toBe('tools/bye/tool.hdlp:1:1: error: tool.hdlp is never read by a scan: a tool is read from tools/<name>/TOOL.hdlp only, in those letters; rename it to TOOL.hdlp');
      expect(run.stderr).toContain('1 file(s) under tools/bye/tool.hdlp: 1 error(s), 0 warning(s)');
      expect(run.code).toBe(1);
    });

    it('says so of its folder given by path', async () => {
      const repo = await repository();
      const run = await runCli(['validate', 'tools/bye'], { env: folder.cliEnv(), cwd: repo });
      expect(run.stdout).toMatch(/^tools\/bye\/:1:1: error: tools\/bye\/ has no TOOL\.hdlp, so it is not a tool: it holds 'tool\.hdlp'/);
      expect(run.code).toBe(1);
    });
  });

  describe.each([
    ['Tool.hdlp', 'error'],
    ['TOOL.yaml', 'error'],
    ['tool.yml', 'error'],
    ['TOOL.HDLP', 'error'],
    ['tool.sh', 'warning'],
    ['tool', 'warning'],
    ['TOOL.hdlp.orig', 'warning'],
  ])('when a tool folder holds %s alone', (name, severity) => {
    it(`reports the folder as ${severity === 'error' ? 'an error naming the file' : 'the scan does, a warning'}`, async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, { 'tools/hello/TOOL.hdlp': makeToolYaml('hello'), [`tools/x/${name}`]: makeToolYaml('x') });
      const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: repo });
      expect(run.stdout).toMatch(new RegExp(`^tools/x/:1:1: ${severity}: tools/x/ has no TOOL\\.hdlp, so it is not a tool`));
      expect(run.stdout.includes(`'${name}'`)).toBe(severity === 'error');
      expect(run.code).toBe(severity === 'error' ? 1 : 0);
    });
  });
});
