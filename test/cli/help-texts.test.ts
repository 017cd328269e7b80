// Review R, R3: `hldp serve --help` did not show --ref and --token, `hldp tail --help` not --token (the options
// existed), `hldp help call` printed the general help, `hldp` alone exited 0 (README: 2 = usage), and README's table
// did not list `receipts --rejected`.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { main } from '../../src/cli/main.js';
import { runCli } from '../helpers/run-cli.js';

function captured(): { io: CommandIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  const io = {
    stdout: { write: (text: string) => ((out += text), true) },
    stderr: { write: (text: string) => ((err += text), true) },
  } as unknown as CommandIo;
  return { io, stdout: () => out, stderr: () => err };
}

const optionNames = (name: string): string[] => Object.keys(COMMANDS.find((command) => command.name === name)!.options).map((option) => `--${option}`);

describe('hldp help texts', () => {
  describe('when a user asks a command for its options (real processes)', () => {
    it('shows every option serve and tail take, --ref and --token included', async () => {
      const [serve, tail] = await Promise.all([runCli(['serve', '--help']), runCli(['tail', '--help'])]);
      expect(serve.code).toBe(0);
      expect(serve.stdout).toMatch(/^usage: hldp serve .*\[--ref REF\] \[--token T\]/);
      expect(tail.code).toBe(0);
      expect(tail.stdout).toMatch(/^usage: hldp tail .*\[--token T\]/);
    });

    it('answers hldp help COMMAND with that command\'s help, and an unknown one with exit 2', async () => {
      const [help, asked, unknown] = await Promise.all([runCli(['help', 'call']), runCli(['call', '--help']), runCli(['help', 'bogus'])]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: hldp call TOOL /);
      expect(help.stdout).toBe(asked.stdout);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^hldp: unknown command 'bogus'; commands: /);
    });

    it('exits 2 with the overview on stderr when no command is given, 0 on stdout when help is asked for', async () => {
      const [bare, help] = await Promise.all([runCli([]), runCli(['--help'])]);
      expect(bare.code).toBe(2);
      expect(bare.stdout).toBe('');
      expect(bare.stderr).toMatch(/^hldp: a git-native registry[\s\S]*usage: hldp <command> \[options\]/);
      expect(help.code).toBe(0);
      expect(help.stdout).toBe(bare.stderr);
    });
  });

  describe.each(COMMANDS.map((command) => [command.name]))('hldp %s', (name) => {
    it('names every option it takes in its --help', async () => {
      const { io, stdout } = captured();
      expect(await main([name, '--help'], io)).toBe(0);
      for (const option of optionNames(name)) expect(stdout(), option).toContain(option);
    });

    it("names every option it takes in README's CLI table", async () => {
      const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
      const rows = readme.split('\n').filter((line) => line.startsWith(`| \`hldp ${name} `) || line.startsWith(`| \`hldp ${name}\``));
      expect(rows.length, `README has no row for hldp ${name}`).toBeGreaterThan(0);
      const cells = rows.map((row) => row.split('` |')[0]).join(' ');
      for (const option of optionNames(name)) expect(cells, option).toContain(option);
    });
  });
});
