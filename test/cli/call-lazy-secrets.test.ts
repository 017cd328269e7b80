// Review userW, W6: `hldp call` needed every gatekeeper's and API's secret of the config, even for a tool that uses
// none of them (the read-only commands were made lazy before, W9): it now needs only its own target's, and names it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

async function setUp(): Promise<{ repo: string; config: string }> {
  const repo = join(home.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/say/TOOL.hdlp': makeToolYaml('say', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' }),
    'tools/gk-run/TOOL.hdlp': makeToolYaml('gk-run', { params_schema: '\n  cmd: { type: string, required: true }', gatekeeper: '{ target: remote }' }),
  });
  const config = join(home.path, 'config.yaml');
  // the README's deployment pattern: the tokens live in the environment where the gateway runs, not in this shell
  await writeFile(config, 'gatekeepers:\n  remote: { url: "http://127.0.0.1:9" }\napis:\n  billing: {}\n');
  return { repo, config };
}

describe('hldp call in a shell without the config\'s gatekeeper and API secrets', () => {
  it('runs a tool that needs none of them', async () => {
    const { repo, config } = await setUp();
    const run = await runCli(['call', 'say', '--repo', repo, '--config', config, '--json'], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, output: 'hello\n' });
  });

  it('names the one secret a tool on a gatekeeper needs, and its variable', async () => {
    const { repo, config } = await setUp();
    const run = await runCli(['call', 'gk-run', '--params', '{"cmd":"true"}', '--repo', repo, '--config', config, '--json'], { env: home.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('gatekeepers.remote: needs both url and token (or HLDP_GATEKEEPER_REMOTE_URL and HLDP_GATEKEEPER_REMOTE_TOKEN)');
    expect(run.stderr).toContain("'gk-run' runs on gatekeepers.remote, and no other target's secret is needed to call it");
    expect(run.stderr).not.toContain('apis.billing');
  });
});
