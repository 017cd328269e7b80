// Review userZ5, F1: the README's pre-commit hook (`hldp validate --staged`) settles a name clash as the gateway will
// once the commit is scanned — the claim served at HEAD keeps the name, the new one is refused (an error: the commit
// is refused, naming the file to rename) — where it said the opposite: a new tool named as a served tool's alias passed
// (the alias "ignored"), and a case twin beside a committed tool told the author to rename the reviewed one.
import { execFile } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { HLDP_BIN, runCli } from '../helpers/run-cli.js';

const execFileAsync = promisify(execFile);
const home = useCliHome();
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

interface Diagnostic {
  file: string;
  code: string;
  message: string;
}

/** A tools repository holding `files` in its first commit, with the README's pre-commit hook (this checkout's CLI) installed. */
async function hookedRepository(files: Record<string, string>): Promise<string> {
  const repo = await initRepository(join(home.path, 'repo'));
  await commitFiles(repo, files, 'first');
  const readme = await readFile(README, 'utf8');
  const block = /```sh\n(# \.git\/hooks\/pre-commit[^\n]*\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no ```sh block starting with "# .git/hooks/pre-commit"');
  await writeFiles(repo, { '.git/hooks/pre-commit': `#!/bin/sh\n${block.replaceAll('node /path/to/brush-holder/bin/hldp.js', `'${process.execPath}' '${HLDP_BIN}'`)}` });
  await chmod(join(repo, '.git/hooks/pre-commit'), 0o755);
  return repo;
}

/** `git commit` as an author runs it, the hook included (unless `--no-verify`): its exit status and what was printed. */
async function commit(repo: string, ...extra: string[]): Promise<{ code: number; output: string }> {
  const env = { ...process.env, ...home.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.test', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.test', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  try {
    const { stdout, stderr } = await execFileAsync('git', ['commit', '-q', '-m', 'add a tool', ...extra], { cwd: repo, env, timeout: 55_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** `hldp scan --repo REPO --json` with the hook's scan cache (a gateway that served HEAD) and with an empty one (a cold start). */
async function scans(repo: string): Promise<Array<{ tools: Array<{ name: string; path: string }>; errors: Diagnostic[] }>> {
  const results = [];
  for (const env of [home.env, { ...home.env, HLDP_CACHE_DIR: join(home.path, 'cold-cache') }]) {
    const run = await runCli(['scan', '--repo', repo, '--json'], { env, cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    results.push(JSON.parse(run.stdout) as { tools: Array<{ name: string; path: string }>; errors: Diagnostic[] });
  }
  return results;
}

describe("the README's pre-commit hook over a name clash (review userZ5, F1)", () => {
  describe('when a new tool is named as an alias a committed tool serves', () => {
    it('refuses the commit at the new tool, as the scan of that commit refuses it and keeps the alias', async () => {
      const repo = await hookedRepository({ 'tools/charcount/TOOL.hdlp': makeToolYaml('charcount', { aliases: '[wordcount, chars]' }) });
      const before = await git(repo, 'rev-parse', 'HEAD');
      await writeFiles(repo, { 'tools/chars/TOOL.hdlp': makeToolYaml('chars') });
      await git(repo, 'add', '-A');
      const hooked = await commit(repo);
      expect(hooked.code).not.toBe(0);
      expect(hooked.output).toMatch(/tools\/chars\/TOOL\.hdlp:1:7: error: tool name 'chars' is an alias tools\/charcount\/TOOL\.hdlp served at the previous commit, and it keeps it: rename this one/);
      expect(hooked.output).not.toContain("it is ignored for 'charcount'");
      expect(await git(repo, 'rev-parse', 'HEAD')).toBe(before);
      // committed anyway: the gateway does what the hook said, warm or cold
      expect((await commit(repo, '--no-verify')).code).toBe(0);
      const [warm, cold] = await scans(repo);
      for (const scan of [warm!, cold!]) {
        expect(scan.tools.map((tool) => tool.name)).toEqual(['charcount']);
        expect(scan.errors).toEqual([expect.objectContaining({ file: 'tools/chars/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining("tool name 'chars' is an alias tools/charcount/TOOL.hdlp") })]);
      }
      // cold, git history decided, and says which claim was there before (it read as if tools/chars had been)
      expect(cold!.errors[0]!.message).toMatch(/declared first in git history \(tools\/chars\/TOOL\.hdlp appeared in commit [0-9a-f]{12}; tools\/charcount\/TOOL\.hdlp declared it before\)/);
      // the working tree, now that it is committed, says the same
      const validated = await runCli(['validate', '.', '--json'], { env: home.env, cwd: repo });
      expect(validated.code).toBe(1);
      expect((JSON.parse(validated.stdout) as { errors: Diagnostic[] }).errors).toEqual([expect.objectContaining({ file: 'tools/chars/TOOL.hdlp', code: 'DUPLICATE_NAME' })]);
    });
  });

  describe('when a case twin is added beside a committed tool', () => {
    it('refuses the commit at the twin, not at the committed tool, as the scan of that commit refuses it', async () => {
      const repo = await hookedRepository({ 'tools/greet/TOOL.hdlp': makeToolYaml('greet') });
      await writeFiles(repo, { 'tools/Greet/TOOL.hdlp': makeToolYaml('Greet') });
      await git(repo, 'add', '-A');
      const hooked = await commit(repo);
      expect(hooked.code).not.toBe(0);
      expect(hooked.output).toMatch(/tools\/Greet\/TOOL\.hdlp:1:7: error: tool name 'Greet' is already taken by tools\/greet\/TOOL\.hdlp, kept because it served that name at the previous commit: rename this one/);
      expect(hooked.output).not.toMatch(/tools\/greet\/TOOL\.hdlp:\d+:\d+: error/);
      expect((await commit(repo, '--no-verify')).code).toBe(0);
      const [warm, cold] = await scans(repo);
      for (const scan of [warm!, cold!]) {
        expect(scan.tools.map((tool) => tool.path)).toEqual(['tools/greet/TOOL.hdlp']);
        expect(scan.errors).toEqual([expect.objectContaining({ file: 'tools/Greet/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining("tool name 'Greet' is already taken by tools/greet/TOOL.hdlp") })]);
      }
      expect(cold!.errors[0]!.message).toMatch(/kept because it held that name first in git history \(tools\/Greet\/TOOL\.hdlp appeared in commit [0-9a-f]{12}; tools\/greet\/TOOL\.hdlp was there before\)/);
    });
  });
});
