import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

// Review P, P15: a policy file the layout does not read — policies/strict/x.hdlp, policies/x.yaml, policies/X.HDLP —
// was ignored without a word: its deny never applied, and scan, serve and hldp validate all said nothing. Real git
// repositories and the real CLI.
const folder = testFolder('hldp-stray-policies-');

const DENY = ['name: nodeploy', 'author: TEST-001', 'why: nobody deploys today', 'approval:', '  - tools: [deploy]', '    decision: deny', '    reason: frozen'].join('\n');
const TOOL = makeToolYaml('deploy', { executor: 'shell', method: 'run', shell: '{ argv: [echo, deployed] }' });

describe('a policy file where the layout does not read it', () => {
  it.each([
    ['in a subfolder', 'policies/strict/nodeploy.hdlp', 'policies/strict/'],
    ['named .yaml', 'policies/nodeploy.yaml', 'policies/nodeploy.yaml'],
    ['named .HDLP', 'policies/Nodeploy.HDLP', 'policies/Nodeploy.HDLP'],
  ])('%s: is an error of scan and validate, and the policies refuse every call until it is moved (fail closed)', async (_, path, reported) => {
    const repo = await initRepository(join(folder.path, `repo-${reported.replace(/\W/g, '-')}`));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': TOOL, [path]: DENY });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const scan = await runCli(['scan', '--repo', repo, '--json'], { env });
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ', severity: 'error' }));
    const call = await runCli(['call', 'deploy', '--repo', repo, '--json'], { env });
    expect(call.code).toBe(1);
    expect(call.stdout).not.toContain('deployed');
    expect(JSON.parse(call.stdout)).toMatchObject({ code: 'TOOL_FORBIDDEN', error: expect.stringContaining(`the policy ${reported} cannot be read`) });
    const validate = await runCli(['validate', '.', '--json'], { env, cwd: repo });
    expect(validate.code).toBe(1);
    expect(JSON.parse(validate.stdout).errors).toContainEqual(expect.objectContaining({ file: reported, code: 'POLICY_NOT_READ' }));
    const given = await runCli(['validate', path], { env, cwd: repo });
    expect(given.code).toBe(1);
    expect(given.stdout).toMatch(/POLICY_NOT_READ|is not read|under policies\/, which is not read/);
    expect(given.stdout).not.toMatch(/unknown field 'approval'/);
  });

  it('moved to policies/<name>.hdlp, applies; a README beside it is only a warning', async () => {
    const repo = await initRepository(join(folder.path, 'repo-right'));
    await commitFiles(repo, { 'tools/deploy/TOOL.hdlp': TOOL, 'policies/nodeploy.hdlp': DENY, 'policies/README.md': 'our rules\n' });
    const env = { ...folder.cliEnv(), HLDP_WORKSPACE: folder.path };
    const scan = JSON.parse((await runCli(['scan', '--repo', repo, '--json'], { env })).stdout) as { errors: unknown[]; warnings: unknown[] };
    expect(scan.errors).toEqual([]);
    expect(scan.warnings).toContainEqual(expect.objectContaining({ file: 'policies/README.md', code: 'POLICY_NOT_READ', severity: 'warning' }));
    const call = await runCli(['call', 'deploy', '--repo', repo, '--json'], { env });
    expect(JSON.parse(call.stdout)).toMatchObject({ ok: false, code: 'DENIED', error: expect.stringContaining('frozen') });
    // validate judges a file given by path by the scan's own rule: the README is the same warning, not an error
    const given = await runCli(['validate', 'policies/README.md', '--json'], { env, cwd: repo });
    expect(JSON.parse(given.stdout)).toMatchObject({ errors: [], warnings: [expect.objectContaining({ file: 'policies/README.md', code: 'POLICY_NOT_READ', severity: 'warning' })] });
    expect(given.code).toBe(0);
  });
});
