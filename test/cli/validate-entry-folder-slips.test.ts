import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

// userZ7, F7: a tool committed under `Tools/` or `tool/` (a case or plural slip of tools/) passed the README's
// pre-commit hook (`hldp validate --staged`), `hldp validate` and `hldp scan` without a word, and was never served,
// while `Policies/` was POLICY_NOT_READ. Now such a folder holding a definition is an error of validate and
// validate --staged, and a warning of a scan (ENTRY_FOLDER_NOT_READ), naming the folder to rename it to.
// Real git repositories and the real CLI.
const folder = testFolder('hldp-entry-folder-slips-');

const TOOL = (name: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' });

describe('a tool in a folder that is a slip of tools/ at the registry\'s root', () => {
  it.each([
    ['Tools', 'tools'],
    ['tool', 'tools'],
    ['Skill', 'skills'],
  ])('%s/<name>/TOOL.hdlp staged: validate --staged and validate refuse it, naming %s/; a scan warns', async (slip, meant) => {
    const repo = await initRepository(join(folder.path, slip, 'repo'));
    await commitFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet') });
    await writeFiles(repo, { [`${slip}/uptime/TOOL.hdlp`]: TOOL('uptime') });
    await git(repo, 'add', '-A');
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const staged = await runCli(['validate', '--staged', '--json'], { env, cwd: repo });
    expect(staged.code).toBe(1);
    expect(JSON.parse(staged.stdout).errors).toContainEqual(expect.objectContaining({ file: `${slip}/`, code: 'ENTRY_FOLDER_NOT_READ', message: expect.stringContaining(`rename it to ${meant}/`) }));
    const validate = await runCli(['validate', '.'], { env, cwd: repo });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(`${slip}/:1:1: error: ${slip}/ is not read`);
    await git(repo, 'commit', '-q', '--no-verify', '-m', 'misplaced');
    const scan = await runCli(['scan', '--repo', repo, '--json'], { env });
    expect(scan.code).toBe(0);
    const scanned = JSON.parse(scan.stdout);
    expect(scanned.warnings).toContainEqual(expect.objectContaining({ file: `${slip}/`, code: 'ENTRY_FOLDER_NOT_READ', severity: 'warning' }));
    expect(scanned.errors).toEqual([]);
  });

  it('a tool/ folder holding no definition (scripts of the repository) does not stop a commit', async () => {
    const repo = await initRepository(join(folder.path, 'scripts', 'repo'));
    await commitFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet') });
    await writeFiles(repo, { 'tool/build.sh': 'echo build\n' });
    await git(repo, 'add', '-A');
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const staged = await runCli(['validate', '--staged', '--json'], { env, cwd: repo });
    expect(staged.code).toBe(0);
    const validate = await runCli(['validate', '.', '--json'], { env, cwd: repo });
    expect(validate.code).toBe(0);
  });

  // author21: a scan warned of a root tool/ by name at every scan though it held only scripts, which validate and
  // validate --staged pass; a scan now warns only of one holding a definition file, as they decide
  it('a tool/ folder of scripts: a scan of the git repository and of the plain folder warns of nothing', async () => {
    const repo = await initRepository(join(folder.path, 'scripts-scan', 'repo'));
    await commitFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet'), 'tool/build.sh': 'echo build\n', 'tool/ci/lint.sh': 'echo lint\n' });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    for (const source of [repo, join(folder.path, 'scripts-scan', 'plain')]) {
      if (source !== repo) await writeFiles(source, { 'tools/greet/TOOL.hdlp': TOOL('greet'), 'tool/build.sh': 'echo build\n' });
      const scan = await runCli(['scan', '--repo', source, '--json'], { env });
      expect(scan.code).toBe(0);
      const scanned = JSON.parse(scan.stdout);
      expect(scanned.tools.map((tool: { name: string }) => tool.name)).toEqual(['greet']);
      expect(scanned.warnings.filter((warning: { code: string }) => warning.code === 'ENTRY_FOLDER_NOT_READ')).toEqual([]);
    }
  });

  it('in a plain folder: validate refuses Tools/up/TOOL.hdlp, and a scan warns', async () => {
    const repo = join(folder.path, 'plain');
    await writeFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet'), 'Tools/up/TOOL.hdlp': TOOL('up') });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const validate = await runCli(['validate', repo, '--json'], { env });
    expect(validate.code).toBe(1);
    expect(JSON.parse(validate.stdout).errors).toContainEqual(expect.objectContaining({ code: 'ENTRY_FOLDER_NOT_READ', severity: 'error' }));
    const scan = await runCli(['scan', '--repo', repo, '--json'], { env });
    expect(JSON.parse(scan.stdout).warnings).toContainEqual(expect.objectContaining({ file: 'Tools/', code: 'ENTRY_FOLDER_NOT_READ' }));
  });
});

// userZ7, F4: `tools/nested/deeper/TOOL.hdlp` got only "tools/nested/ has no TOOL.hdlp" (a warning), printed as
// `…/tools/nested//:1:1:` when validated from another folder. Now it is an error naming the file and the move.
describe('a TOOL.hdlp one folder too deep under tools/', () => {
  it('validate from another folder: an error naming the file and where to move it, the folder shown with one slash', async () => {
    const repo = join(folder.path, 'deep-plain');
    await writeFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet'), 'tools/nested/deeper/TOOL.hdlp': TOOL('deeper') });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const validate = await runCli(['validate', 'deep-plain'], { env, cwd: folder.path });
    expect(validate.code).toBe(1);
    const output = validate.stdout + validate.stderr;
    expect(output).toContain("deep-plain/tools/nested/:1:1: error: tools/nested/ has no TOOL.hdlp, so it is not a tool: it holds 'deeper/TOOL.hdlp', one folder too deep");
    expect(output).toContain('move it to tools/nested/TOOL.hdlp, or the folder to tools/deeper/');
    expect(output).not.toContain('//');
  });

  it('validate --staged refuses the commit alike', async () => {
    const repo = await initRepository(join(folder.path, 'deep-git', 'repo'));
    await commitFiles(repo, { 'tools/greet/TOOL.hdlp': TOOL('greet') });
    await writeFiles(repo, { 'tools/nested/deeper/TOOL.hdlp': TOOL('deeper') });
    await git(repo, 'add', '-A');
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const staged = await runCli(['validate', '--staged', '--json'], { env, cwd: repo });
    expect(staged.code).toBe(1);
    expect(JSON.parse(staged.stdout).errors).toContainEqual(expect.objectContaining({ file: 'tools/nested/', code: 'MISSING_DEFINITION', message: expect.stringContaining('one folder too deep') }));
  });
});
