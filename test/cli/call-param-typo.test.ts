import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-call-param-typo-');

// review userZ9, U9-10: a parameter's name one letter off was told it is none, without the name meant, which unknown
// tools, toolsets and keys are told everywhere else
describe('hldp call with a misspelt parameter name', () => {
  it('is told the parameter it likely meant', async () => {
    await initRepository(folder.path);
    await commitFiles(folder.path, {
      'tools/greet/TOOL.hdlp': ['name: greet', 'display: Greet', 'intent: Say hello to someone', 'method: run', 'executor: shell', 'params_schema:', '  name: { type: string, required: true, pattern: "^[a-z]+$" }', 'shell: { argv: [echo, "{name}"] }', 'author: u', 'created: 2026-02-28', 'why: w', ''].join('\n'),
    });
    const run = await runCli(['call', 'greet', '--params', '{"nam":"x"}', '--repo', folder.path], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stdout + run.stderr).toContain("'nam' is not a parameter of this tool (did you mean 'name'?)");
    expect(run.code).not.toBe(0);
  });
});
