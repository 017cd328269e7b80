// Review userZ3, MEDIUM 3 and MEDIUM 2. A boolean parameter written as its own argv element, the obvious reading of
// "a nested list is an optional group" (`argv: [wc, ["-l", "{lines_only}"], "--", "{path}"]`), passed `hldp validate`
// without a word and ran `wc -l true` and `wc -l false`: the flag was on either way. `hldp validate` now warns at the
// element (BOOLEAN_AS_ARGUMENT), and the switch it points to, `shell.select` by the boolean with templates "true" and
// "false", runs (before, validate asked the boolean for an enum, and with `enum: [true, false]` every call was refused
// as INVALID_PARAMS). Trying a tool with the tools repository itself as the workspace is refused as
// SANDBOX_UNAVAILABLE, naming HLDP_WORKSPACE: the README documents that code for it, which agents already handle.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const HEAD = (name: string): string => `name: ${name}\ndisplay: ${name}\nintent: counts the lines of ${name}\nmethod: run\nexecutor: shell\n`;
const TAIL = 'author: TEST-001\ncreated: 2026-05-31\nwhy: tests need it\n';

const TOOLS: Record<string, string> = {
  // the attempt of the finding: the group is kept whenever the parameter is given, true or false
  'tools/wc-flag/TOOL.hdlp': `${HEAD('wc-flag')}params_schema:\n  path: { type: string, required: true }\n  lines_only: { type: boolean }\nshell:\n  argv: [wc, ["-l", "{lines_only}"], "--", "{path}"]\n${TAIL}`,
  // a program that takes the words: right as written, still told what the value becomes
  'tools/git-bare/TOOL.hdlp': `${HEAD('git-bare')}params_schema:\n  bare: { type: boolean, required: true }\nshell:\n  argv: [git, config, core.bare, "{bare}"]\n${TAIL}`,
  // the switch the warning points to
  'tools/wc-switch/TOOL.hdlp': `${HEAD('wc-switch')}params_schema:\n  path: { type: string, required: true }\n  lines_only: { type: boolean, default: false }\nshell:\n  select: lines_only\n  argv:\n    "true": [wc, "-l", "--", "{path}"]\n    "false": [wc, "--", "{path}"]\n${TAIL}`,
};

let home: { path: string; cleanup: () => Promise<void> };
let repo: string;
let workspace: string;
const env = (): NodeJS.ProcessEnv => ({ HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_WORKSPACE: workspace });

beforeAll(async () => {
  home = await makeTempDir('hldp-boolean-flags-');
  repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, TOOLS);
  workspace = join(home.path, 'work');
  await writeFiles(workspace, { 'notes.txt': 'one two\nthree\n' });
});
afterAll(async () => {
  await home?.cleanup();
});

describe('hldp validate', () => {
  describe('when a boolean parameter stands as its own argv element', () => {
    it('warns at the element that the value becomes the text true/false, and how to write a switch; the switch itself passes', async () => {
      const run = await runCli(['validate', 'repo'], { cwd: home.path });
      expect(run.stderr).not.toContain('brush-holder bug');
      const told = run.stdout.split('\n').filter((line) => line.startsWith('repo/tools/'));
      expect(told).toEqual([
        "repo/tools/git-bare/TOOL.hdlp:9:34: warning: boolean parameter 'bare' is a whole argument: its value becomes the text 'true' or 'false'; for an on/off flag, pick a template by it: 'shell.select: bare' with 'shell.argv: {\"true\": [… the flag …], \"false\": [… without it …]}', or read \"$HLDP_PARAM_BARE\" in a 'shell.script'; if the program takes the words true/false, this is right as written",
        "repo/tools/wc-flag/TOOL.hdlp:10:21: warning: boolean parameter 'lines_only' is a whole argument: its value becomes the text 'true' or 'false' (an optional group is dropped only when the parameter is missing, not when it is false); for an on/off flag, pick a template by it: 'shell.select: lines_only' with 'shell.argv: {\"true\": [… the flag …], \"false\": [… without it …]}', or read \"$HLDP_PARAM_LINES_ONLY\" in a 'shell.script'; if the program takes the words true/false, this is right as written",
      ]);
      expect(run.stderr).toContain('3 file(s) under ');
      expect(run.stderr).toContain(': 0 error(s), 2 warning(s)');
      expect(run.code).toBe(0);
    });
  });
});

describe('hldp call', () => {
  describe('when a shell tool picks its template by a boolean (shell.select)', () => {
    it.each([
      [true, /^2 notes\.txt\n$/],
      [false, /^\s*2\s+3\s+\d+ notes\.txt\n$/],
    ])('with lines_only %s runs the template of that name', async (linesOnly, output) => {
      const run = await runCli(['call', 'wc-switch', '--repo', repo, '--params', JSON.stringify({ path: 'notes.txt', lines_only: linesOnly }), '--json'], { cwd: home.path, env: env() });
      const receipt = JSON.parse(run.stdout) as { ok: boolean; output: string; code?: string; error: string };
      expect(receipt, run.stderr).toMatchObject({ ok: true });
      expect(receipt.output).toMatch(output);
      expect(run.code).toBe(0);
    });
  });

  describe('when the workspace is the tools repository itself', () => {
    it('refuses every shell tool as SANDBOX_UNAVAILABLE, naming HLDP_WORKSPACE, and runs nothing', async () => {
      const run = await runCli(['call', 'wc-flag', '--repo', repo, '--params', '{"path":"notes.txt"}', '--json'], { cwd: repo, env: { ...env(), HLDP_WORKSPACE: repo } });
      const receipt = JSON.parse(run.stdout) as { ok: boolean; code: string; error: string; output: string };
      expect(receipt).toMatchObject({ ok: false, code: 'SANDBOX_UNAVAILABLE', output: '' });
      expect(receipt.error).toMatch(/no local tool runs in this workspace: .*which no tool may change \(the tools repository.*set workspace_root \(or HLDP_WORKSPACE\)/);
      expect(run.code).toBe(1);
    });
  });
});
