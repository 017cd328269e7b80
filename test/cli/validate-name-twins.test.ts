// Task twin14: `hldp validate` says of two definitions claiming one name what a scan says (which is kept, and why),
// in a git repository what the scan of the next commit says, the claim served at HEAD keeping it (review userZ5, F1),
// and warns of folders differing only by case, which a checkout on macOS or Windows cannot hold both of.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, git, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp validate over case twins', () => {
  it('reports the one not kept as the scan of the next commit does, and warns of both folders, in the working tree and --staged', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/hello/TOOL.hdlp': makeToolYaml('hello') });
    await writeFiles(repo, { 'tools/Hello/TOOL.hdlp': makeToolYaml('Hello') });
    await git(repo, 'add', '-A');
    for (const args of [['validate', '.', '--json'], ['validate', '--staged', '.', '--json']]) {
      const run = await runCli(args, { env: home.env, cwd: repo });
      expect(run.code, args.join(' ')).toBe(1);
      const { errors, warnings } = JSON.parse(run.stdout) as { errors: Array<{ file: string; code: string; message: string }>; warnings: Array<{ file: string; code: string }> };
      // the committed one keeps the name, as the gateway keeps it once the twin is committed (review userZ5, F1)
      expect(errors).toEqual([expect.objectContaining({ file: 'tools/Hello/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining("tool name 'Hello' is already taken by tools/hello/TOOL.hdlp, kept because it served that name at the previous commit") })]);
      expect(warnings.filter((warning) => warning.code === 'CASE_TWIN').map((warning) => warning.file).sort()).toEqual(['tools/Hello/TOOL.hdlp', 'tools/hello/TOOL.hdlp']);
    }
  });

  it('keeps the first by path order in a plain folder, which has no commit before', async () => {
    await writeFiles(join(home.path, 'plain'), { 'tools/hello/TOOL.hdlp': makeToolYaml('hello'), 'tools/Hello/TOOL.hdlp': makeToolYaml('Hello') });
    const run = await runCli(['validate', '.', '--json'], { env: home.env, cwd: join(home.path, 'plain') });
    expect(run.code).toBe(1);
    const { errors } = JSON.parse(run.stdout) as { errors: Array<{ file: string; code: string; message: string }> };
    expect(errors).toEqual([expect.objectContaining({ file: 'tools/hello/TOOL.hdlp', code: 'DUPLICATE_NAME', message: expect.stringContaining("tool name 'hello' is already taken by tools/Hello/TOOL.hdlp, kept because it is the first by path order") })]);
  });
});
