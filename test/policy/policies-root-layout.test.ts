import { cp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

// Review Q, Q5: P15 looked only inside policies/. A `policies` at the registry's root that is a symbolic link
// (`policies -> rules`), a file or a submodule, or a folder spelled `Policies/` (or `policy/`), was ignored by a git
// registry without a word — scan and validate said 0 errors, and the tool its deny names ran — while a folder registry
// followed the link and denied. Now each is POLICY_NOT_READ in every source and in validate, and the policies refuse
// every call until it is a plain policies/ folder (fail closed). Real git repositories and the real CLI.
const folder = testFolder('hldp-policies-root-');

const DENY = ['name: nodeploy', 'author: TEST-001', 'why: nobody deploys today', 'approval:', '  - tools: [deploy]', '    decision: deny', '    reason: frozen'].join('\n');
const TOOL = makeToolYaml('deploy', { executor: 'shell', method: 'run', shell: '{ argv: [echo, deployed] }' });

type Layout = (repo: string) => Promise<void>;

const linked: Layout = async (repo) => {
  await writeFiles(repo, { 'rules/nodeploy.hdlp': DENY });
  await symlink('rules', join(repo, 'policies'));
};
const capitalised: Layout = (repo) => writeFiles(repo, { 'Policies/nodeploy.hdlp': DENY });
const singular: Layout = (repo) => writeFiles(repo, { 'policy/nodeploy.hdlp': DENY });
const aFile: Layout = (repo) => writeFiles(repo, { policies: DENY });
// a real submodule: the rules are committed in a repository of their own, checked out at policies/
const submodule: Layout = async (repo) => {
  const rules = await initRepository(join(repo, '..', 'rules-repository'));
  await commitFiles(rules, { 'nodeploy.hdlp': DENY });
  await git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', rules, 'policies');
};

async function committedRepository(name: string, layout: Layout): Promise<string> {
  const repo = await initRepository(join(folder.path, name, 'repo'));
  await writeFiles(repo, { 'tools/deploy/TOOL.hdlp': TOOL });
  await layout(repo);
  await commitFiles(repo, {});
  return repo;
}

describe('what at a registry\'s root is meant as policies/ but is not a plain policies/ folder', () => {
  it.each([
    ['a symbolic link policies -> rules', linked, 'policies'],
    ['a folder spelled Policies/', capitalised, 'Policies/'],
    ['a folder spelled policy/', singular, 'policy/'],
    ['a file named policies', aFile, 'policies'],
    ['a git submodule at policies', submodule, 'policies'],
  ])('%s, in a git registry: an error of scan, validate and validate --staged, and every call is refused (it ran before)', async (_, layout, reported) => {
    const repo = await committedRepository('git', layout);
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const scan = await runCli(['scan', '--repo', repo, '--json'], { env });
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ', severity: 'error' }));
    const call = await runCli(['call', 'deploy', '--repo', repo, '--json'], { env });
    expect(call.stdout).not.toContain('deployed\\n');
    expect(call.code).toBe(1);
    expect(JSON.parse(call.stdout)).toMatchObject({ code: 'TOOL_FORBIDDEN', error: expect.stringContaining(`the policy ${reported} cannot be read`) });
    const validate = await runCli(['validate', '.', '--json'], { env, cwd: repo });
    expect(validate.code).toBe(1);
    expect(JSON.parse(validate.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ' }));
    const staged = await runCli(['validate', '--staged', '--json'], { env, cwd: repo });
    expect(staged.code).toBe(1);
    expect(JSON.parse(staged.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ' }));
  });

  it.each([
    ['a symbolic link policies -> rules (which it used to follow)', linked, 'policies'],
    ['a folder spelled Policies/', capitalised, 'Policies/'],
  ])('%s, in a folder registry: the same error, and every call is refused as in git', async (_, layout, reported) => {
    const repo = join(folder.path, 'plain');
    await writeFiles(repo, { 'tools/deploy/TOOL.hdlp': TOOL });
    await layout(repo);
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const scan = await runCli(['scan', '--repo', repo, '--json'], { env });
    expect(JSON.parse(scan.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ', severity: 'error' }));
    const call = await runCli(['call', 'deploy', '--repo', repo, '--json'], { env });
    expect(call.code).toBe(1);
    expect(JSON.parse(call.stdout)).toMatchObject({ code: 'TOOL_FORBIDDEN', error: expect.stringContaining(`the policy ${reported} cannot be read`) });
  });

  it('a file given by path through the link is named as not read, not linted as a policy that applies', async () => {
    const repo = await committedRepository('given', linked);
    const given = await runCli(['validate', 'policies/nodeploy.hdlp', '--json'], { env: folder.cliEnv(), cwd: repo });
    expect(given.code).toBe(1);
    expect(JSON.parse(given.stdout).errors).toContainEqual(expect.objectContaining({ file: 'policies/nodeploy.hdlp', code: 'POLICY_NOT_READ', message: expect.stringContaining('symbolic link') }));
  });

  it('made a plain policies/ folder again, the deny applies, and a tool named policy is only a tool', async () => {
    const repo = await committedRepository('fixed', linked);
    await rm(join(repo, 'policies'));
    await cp(join(repo, 'rules'), join(repo, 'policies'), { recursive: true });
    await commitFiles(repo, { 'tools/policy/TOOL.hdlp': makeToolYaml('policy', { executor: 'shell', method: 'run', shell: '{ argv: [echo, policy] }' }) });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const scan = JSON.parse((await runCli(['scan', '--repo', repo, '--json'], { env })).stdout) as { errors: unknown[] };
    expect(scan.errors).toEqual([]);
    const call = await runCli(['call', 'deploy', '--repo', repo, '--json'], { env });
    expect(JSON.parse(call.stdout)).toMatchObject({ ok: false, code: 'DENIED', error: expect.stringContaining('frozen') });
    const given = await runCli(['validate', 'tools/policy/TOOL.hdlp', '--json'], { env, cwd: repo });
    expect(JSON.parse(given.stdout)).toMatchObject({ errors: [] });
    expect(given.code).toBe(0);
  });
});
