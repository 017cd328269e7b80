import { execFile } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const execFileAsync = promisify(execFile);
const folder = testFolder('hldp-staged-');

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const echoTool = (name: string): string => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${name}] }` });
const POLICY = 'name: team\nauthor: TEST-001\nwhy: tests need a policy\naccess:\n  - tools: [echo-a]\n    roles: [trusted]\n';

/** The pre-commit hook exactly as the README gives it, running this checkout's CLI (the node running the tests and this checkout's bin/hldp.js). */
async function documentedHook(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const block = /```sh\n(# \.git\/hooks\/pre-commit[^\n]*\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no ```sh block starting with "# .git/hooks/pre-commit"');
  expect(block).toContain('node /path/to/brush-holder/bin/hldp.js');
  return `#!/bin/sh\n${block.replaceAll('node /path/to/brush-holder/bin/hldp.js', `'${process.execPath}' '${HLDP_BIN}'`)}`;
}

/** A tools repository with the README's hook installed, its first commit made. */
async function hookedRepository(): Promise<string> {
  const repo = await initRepository(join(folder.path, 'repo'));
  await commitFiles(repo, { 'tools/echo-a/TOOL.hdlp': echoTool('echo-a'), 'tools/echo-b/TOOL.hdlp': echoTool('echo-b'), 'policies/team.hdlp': POLICY }, 'first');
  await writeFiles(repo, { '.git/hooks/pre-commit': await documentedHook() });
  await chmod(join(repo, '.git/hooks/pre-commit'), 0o755);
  return repo;
}

/** `git commit` as an author runs it, the hook included: its exit status and what the hook printed. */
async function commit(repo: string, message: string, ...extra: string[]): Promise<{ code: number; output: string }> {
  const env = { ...process.env, ...folder.cliEnv(), GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.test', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.test', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  try {
    const { stdout, stderr } = await execFileAsync('git', ['commit', '-q', '-m', message, ...extra], { cwd: repo, env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the README's pre-commit hook (hldp validate --staged)", () => {
  describe('when a commit deletes a tool a policy names', () => {
    it('refuses the commit, naming the policy file:line:col and the missing tool', async () => {
      const repo = await hookedRepository();
      const before = await git(repo, 'rev-parse', 'HEAD');
      await git(repo, 'rm', '-q', '-r', 'tools/echo-a');
      const run = await commit(repo, 'remove echo-a');
      expect(run.code).not.toBe(0);
      expect(run.output).toMatch(/policies\/team\.hdlp:5:13: error: policy 'team' names 'echo-a', which is neither a tool nor a group/);
      expect(await git(repo, 'rev-parse', 'HEAD')).toBe(before);
    });
  });

  describe('when the staged file is broken but the working tree holds a good one', () => {
    it('refuses the commit: it checks what the commit holds', async () => {
      const repo = await hookedRepository();
      await writeFiles(repo, { 'tools/echo-b/TOOL.hdlp': `${echoTool('echo-b')}intent: [\n` });
      await git(repo, 'add', 'tools/echo-b/TOOL.hdlp');
      await writeFiles(repo, { 'tools/echo-b/TOOL.hdlp': `${echoTool('echo-b')}aliases: [say b]\n` });
      const run = await commit(repo, 'broken echo-b');
      expect(run.code).not.toBe(0);
      expect(run.output).toMatch(/^tools\/echo-b\/TOOL\.hdlp:11:1: error: /m);
    });
  });

  describe('when a tool is committed as tools/<name>/tool.hdlp, in lower case (userU, F1)', () => {
    it('refuses the commit, as the scan would never serve the tool: it says to rename it to TOOL.hdlp', async () => {
      const repo = await hookedRepository();
      const before = await git(repo, 'rev-parse', 'HEAD');
      await writeFiles(repo, { 'tools/bye/tool.hdlp': echoTool('bye') });
      await git(repo, 'add', 'tools/bye');
      const run = await commit(repo, 'bye');
      expect(run.code).not.toBe(0);
      expect(run.output).toMatch(/^tools\/bye\/:1:1: error: tools\/bye\/ has no TOOL\.hdlp, so it is not a tool: it holds 'tool\.hdlp', which a scan never reads .*; rename it to TOOL\.hdlp$/m);
      expect(await git(repo, 'rev-parse', 'HEAD')).toBe(before);
      await git(repo, 'mv', 'tools/bye/tool.hdlp', 'tools/bye/TOOL.hdlp');
      expect(await commit(repo, 'bye')).toEqual({ code: 0, output: expect.any(String) });
    });
  });

  describe('when the staged change is good but the working tree holds a broken one', () => {
    it('lets the commit through', async () => {
      const repo = await hookedRepository();
      await writeFiles(repo, { 'tools/echo-b/TOOL.hdlp': `${echoTool('echo-b')}aliases: [say b]\n` });
      await git(repo, 'add', 'tools/echo-b/TOOL.hdlp');
      await writeFiles(repo, { 'tools/echo-b/TOOL.hdlp': 'intent: [\n' });
      const run = await commit(repo, 'alias for echo-b');
      expect(run).toEqual({ code: 0, output: expect.any(String) });
      expect(await git(repo, 'show', 'HEAD:tools/echo-b/TOOL.hdlp')).toContain('aliases: [say b]');
    });
  });
});

/** A repository whose registry is its folder `registry/`, with the README's hook naming it, and a linked worktree of it. */
async function hookedRegistryFolder(): Promise<{ main: string; linked: string }> {
  const main = await initRepository(join(folder.path, 'repo'));
  await commitFiles(main, { 'registry/tools/echo-a/TOOL.hdlp': echoTool('echo-a'), 'registry/tools/echo-b/TOOL.hdlp': echoTool('echo-b') }, 'first');
  const hook = (await documentedHook()).replace(/validate --staged$/m, 'validate --staged registry');
  expect(hook).toMatch(/validate --staged registry$/m);
  await writeFiles(main, { '.git/hooks/pre-commit': hook });
  await chmod(join(main, '.git/hooks/pre-commit'), 0o755);
  const linked = join(folder.path, 'linked');
  await git(main, 'worktree', 'add', '-q', '-b', 'side', linked);
  return { main, linked };
}

const BROKEN = `${echoTool('echo-a')}intent: [\n`;
const GOOD = `${echoTool('echo-a')}aliases: [say a]\n`;

// review P, P4: git hands a hook GIT_DIR (.git/worktrees/NAME in a linked worktree) and GIT_INDEX_FILE (a temporary
// index for `commit -a` and `commit PATH`); the hook named its registry folder, and every commit of a linked worktree,
// good or broken, was refused: "no definition staged under registry"
describe.each(['main', 'linked'] as const)("the README's pre-commit hook naming the registry's folder, in the %s worktree", (where) => {
  const author = async (): Promise<string> => (await hookedRegistryFolder())[where];

  describe('when a broken definition is staged (git add), then a good one', () => {
    it('refuses the broken one at its line and lets the good one through', async () => {
      const worktree = await author();
      await writeFiles(worktree, { 'registry/tools/echo-a/TOOL.hdlp': BROKEN });
      await git(worktree, 'add', 'registry');
      const broken = await commit(worktree, 'broken echo-a');
      expect(broken.code).not.toBe(0);
      expect(broken.output).toMatch(/^registry\/tools\/echo-a\/TOOL\.hdlp:11:1: error: /m);
      await writeFiles(worktree, { 'registry/tools/echo-a/TOOL.hdlp': GOOD });
      await git(worktree, 'add', 'registry');
      expect(await commit(worktree, 'alias for echo-a')).toEqual({ code: 0, output: expect.any(String) });
      expect(await git(worktree, 'show', 'HEAD:registry/tools/echo-a/TOOL.hdlp')).toContain('aliases: [say a]');
    });
  });

  describe('when `git commit -a` takes a broken file of the working tree, then a good one', () => {
    it('refuses the broken one and lets the good one through', async () => {
      const worktree = await author();
      await writeFiles(worktree, { 'registry/tools/echo-a/TOOL.hdlp': BROKEN });
      const broken = await commit(worktree, 'broken echo-a', '-a');
      expect(broken.code).not.toBe(0);
      expect(broken.output).toMatch(/^registry\/tools\/echo-a\/TOOL\.hdlp:11:1: error: /m);
      await writeFiles(worktree, { 'registry/tools/echo-a/TOOL.hdlp': GOOD });
      expect(await commit(worktree, 'alias for echo-a', '-a')).toEqual({ code: 0, output: expect.any(String) });
      expect(await git(worktree, 'show', 'HEAD:registry/tools/echo-a/TOOL.hdlp')).toContain('aliases: [say a]');
    });
  });

  describe('when `git commit PATH` commits a good file while a broken one is staged beside it, then the broken one', () => {
    it('checks what that commit holds: the good one through, the broken one refused', async () => {
      const worktree = await author();
      await writeFiles(worktree, { 'registry/tools/echo-b/TOOL.hdlp': `${echoTool('echo-b')}intent: [\n`, 'registry/tools/echo-a/TOOL.hdlp': GOOD });
      await git(worktree, 'add', 'registry/tools/echo-b');
      expect(await commit(worktree, 'alias for echo-a', '--', 'registry/tools/echo-a/TOOL.hdlp')).toEqual({ code: 0, output: expect.any(String) });
      expect(await git(worktree, 'show', 'HEAD:registry/tools/echo-b/TOOL.hdlp')).toBe(echoTool('echo-b').trim());
      const broken = await commit(worktree, 'broken echo-b', '--', 'registry/tools/echo-b/TOOL.hdlp');
      expect(broken.code).not.toBe(0);
      expect(broken.output).toMatch(/^registry\/tools\/echo-b\/TOOL\.hdlp:11:1: error: /m);
    });
  });
});

describe('hldp validate --staged', () => {
  describe('when the registry is a folder of the repository', () => {
    it('checks the staged definitions under it, shown relative to the current folder', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, { 'registry/tools/echo-a/TOOL.hdlp': echoTool('echo-a'), 'registry/toolsets/ops/TOOLSET.hdlp': 'name: ops\ndescription: d\ntools: [echo-a]\nauthor: TEST-001\nwhy: w\n' }, 'first');
      await git(repo, 'rm', '-q', '-r', 'registry/tools/echo-a');
      const run = await runCli(['validate', '--staged', 'registry', '--json'], { cwd: repo, env: folder.cliEnv() });
      expect(run.code).toBe(1);
      const result = JSON.parse(run.stdout);
      expect(result.files).toBe(1);
      expect(result.errors).toEqual([expect.objectContaining({ file: 'registry/toolsets/ops/TOOLSET.hdlp', line: 3, code: 'UNKNOWN_MEMBER' })]);
    });
  });

  describe('when the folder is not in a git working tree', () => {
    it('exits 2 saying --staged needs one', async () => {
      const run = await runCli(['validate', '--staged'], { cwd: folder.path, env: folder.cliEnv() });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--staged reads git's index, but '\.' is not inside a git working tree/);
    });
  });
});
