import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-messages-');

// each malformed definition is reported once, at its field, with what to write instead (review N, N11/N12)
describe('hldp validate', () => {
  describe('when a definition is malformed', () => {
    it.each([
      [
        'a shell block with neither argv nor script',
        { executor: 'shell', method: 'run', shell: '{ command: "echo a" }' },
        ["tools/demo/TOOL.hdlp:10:8: error: 'shell' needs one of: 'argv', 'script'", "tools/demo/TOOL.hdlp:10:10: error: unknown field 'shell.command'; allowed: argv, select, script, env, cwd, stdin, ok_exit_codes"],
      ],
      [
        'a git-forgejo method the executor lacks',
        { executor: 'git-forgejo', method: 'clone' },
        ["tools/demo/TOOL.hdlp:4:9: error: git-forgejo has no method 'clone': every call would fail; use one of: read_file, list_commits, list_tree, write_file, create_issue"],
      ],
      [
        "a gatekeeper method brush-holder's gatekeeper lacks",
        { executor: 'gatekeeper', method: 'run' },
        ["tools/demo/TOOL.hdlp:4:9: warning: brush-holder's gatekeeper has no method 'run' (it answers UNKNOWN_METHOD): use one of exec, read_file, read_bytes, write_file, list_dir, unless this tool's gatekeeper is another program that has it"],
      ],
    ])('reports %s at its field', async (_case, overrides, lines) => {
      await writeFiles(folder.path, { 'tools/demo/TOOL.hdlp': makeToolYaml('demo', overrides) });
      const run = await runCli(['validate', folder.path], { env: folder.cliEnv(), cwd: folder.path });
      expect(run.stdout.trim().split('\n')).toEqual(lines);
      expect(run.code).toBe(lines.some((line) => line.includes(': error: ')) ? 1 : 0);
    });
  });
});
