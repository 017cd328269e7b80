// Review userU, F9 and review U's LOW: what a real `hldp` said that read as another mistake than the one made.
// `hldp confirm TOKEN --timeout 99h` said "nothing ran" but not that the token was still good; a TOOL.hdlp merge key
// (`<<: *d`) was only "unknown field" and `timeout_ms: 30s` only "must be integer"; `hldp call --timout 5` got no
// "did you mean --timeout"; and `hldp validate DIR` found nothing in a registry checked out as a folder named tools.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp confirm', () => {
  describe('when the deadline it asks for is longer than the tool allows', () => {
    it('says the token is still good and how long it may ask for, and the token then runs the call', async () => {
      const run = { env: home.env, cwd: home.path };
      const waiting = JSON.parse((await runCli(['call', 'file-write', '--json', '--params', '{"path":"a.txt","content":"hi"}'], run)).stdout) as { token: string };
      const refused = await runCli(['confirm', waiting.token, '--timeout', '99h'], run);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Ask for at most 10000 ms; nothing ran. The confirmation token is still good: confirm it again asking for at most 10000 ms, or for no deadline.');
      const confirmed = await runCli(['confirm', waiting.token], run);
      expect(confirmed.code).toBe(0);
      expect(await readFile(join(home.path, 'a.txt'), 'utf8')).toBe('hi');
    });
  });
});

describe('hldp validate and hldp scan', () => {
  describe('when a TOOL.hdlp uses a YAML merge key, or writes timeout_ms with a unit', () => {
    it('say why, with the file and line, in the same words', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, {
        'tools/merged/TOOL.hdlp': `${makeToolYaml('merged')}constraints:\n  <<: { timeout_ms: 5000 }\n`,
        'tools/thirty/TOOL.hdlp': `${makeToolYaml('thirty')}constraints:\n  timeout_ms: 30s\n`,
      });
      const merge = "tools/merged/TOOL.hdlp:11:3: error: unknown field 'constraints.<<': '<<' is a YAML 1.1 merge key, and YAML 1.2 (how this file is read) has none; write the keys out under 'constraints'; allowed: ";
      const unit = "tools/thirty/TOOL.hdlp:11:15: error: 'constraints.timeout_ms' must be integer: milliseconds as a whole number, e.g. 30000 for 30 s, not '30s'";
      const validate = await runCli(['validate', '.'], { env: home.env, cwd: repo });
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(merge);
      expect(validate.stdout).toContain(unit);
      const scan = await runCli(['scan', '--repo', '.'], { env: home.env, cwd: repo });
      expect(scan.stdout + scan.stderr).toContain(merge);
      expect(scan.stdout + scan.stderr).toContain(unit);
    });
  });

  describe('when the registry is checked out in a folder named tools', () => {
    it('validates its tools, as serve --repo serves them, and a tool named skills in a tools/ folder stays a tool', async () => {
      const checkout = join(home.path, 'tools');
      await writeFiles(checkout, { 'tools/hello/TOOL.hdlp': makeToolYaml('hello'), 'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'nope' }) });
      const validate = await runCli(['validate', checkout], { env: home.env, cwd: home.path });
      expect(validate.stderr).toContain('2 file(s) under');
      expect(validate.stdout).toMatch(/tools\/tools\/broken\/TOOL\.hdlp:\d+:\d+: error: 'executor' must be one of/);
      expect(validate.code).toBe(1);
      const other = join(home.path, 'elsewhere', 'tools');
      await writeFiles(other, { 'skills/TOOL.hdlp': makeToolYaml('skills'), 'hello/TOOL.hdlp': makeToolYaml('hello') });
      const folder = await runCli(['validate', other], { env: home.env, cwd: home.path });
      expect({ code: folder.code, stderr: folder.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('2 file(s) under') });
    });
  });
});

describe('hldp COMMAND --misspelt-option', () => {
  // 17 cold hldp processes in turn: 7.9 s on a quiet run, 53.5 s of the 60 s default at load 25 on these 2 cores
  it('says which option was meant, for every subcommand', async () => {
    const run = await runCli(['call', 'shell-exec', '--timout', '5'], { env: home.env, cwd: home.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^hldp call: unknown option '--timout'; did you mean --timeout\?\nusage: hldp call /);
    for (const command of COMMANDS) {
      // each command's longest option, one letter dropped: a typo of it and of nothing else
      const option = ['help', ...Object.keys(command.options)].sort((a, b) => b.length - a.length)[0]!;
      const typo = `--${option.slice(0, 2)}${option.slice(3)}`;
      const answer = await runCli([command.name, typo], { env: home.env, cwd: home.path });
      expect({ command: command.name, code: answer.code, first: answer.stderr.split('\n')[0] }).toEqual({ command: command.name, code: 2, first: `hldp ${command.name}: unknown option '${typo}'; did you mean --${option}?` });
    }
    const unknown = await runCli(['lst'], { env: home.env });
    expect(unknown.stderr).toMatch(/^hldp: unknown command 'lst' \(did you mean list\?\); commands: serve, /);
  }, 240_000);
});
