import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-symlinks-');

// a symlinked TOOL.hdlp crashed validate with a raw ELOOP (exit 2) and lost every other file's report (review R, R8)
async function repositoryWithLinks(): Promise<void> {
  await writeFiles(folder.path, {
    'tools/good/TOOL.hdlp': makeToolYaml('good'),
    'tools/broken/TOOL.hdlp': makeToolYaml('broken', { executor: 'git-forgejo', method: 'clone' }),
    'elsewhere/TOOL.hdlp': makeToolYaml('link'),
  });
  await writeFiles(folder.path, { 'tools/link/.keep': '', 'tools/dangling/.keep': '' });
  await symlink(join(folder.path, 'elsewhere/TOOL.hdlp'), join(folder.path, 'tools/link/TOOL.hdlp'));
  await symlink(join(folder.path, 'nowhere/TOOL.hdlp'), join(folder.path, 'tools/dangling/TOOL.hdlp'));
}

describe('hldp validate of a repository holding a symlinked TOOL.hdlp', () => {
  it('reports the link and a dangling link per file, and still reports the other files', async () => {
    await repositoryWithLinks();
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stderr).not.toContain('ELOOP');
    expect(run.stdout.trim().split('\n')).toEqual([
      "tools/broken/TOOL.hdlp:4:9: error: git-forgejo has no method 'clone': every call would fail; use one of: read_file, list_commits, list_tree, write_file, create_issue",
    'tools/dangling/TOOL.hdlp:1:1: error: TOOL.hdlp must be a regular file (not a symlink, folder or device)',
    'tools/link/TOOL.hdlp:1:1: error: TOOL.hdlp must be a regular file (not a symlink, folder or device)',
    ]);
    expect(run.stderr).toContain('4 file(s) under .: 3 error(s)');
    expect(run.code).toBe(1);
  });

  it('reports a symlinked TOOL.hdlp given by path', async () => {
    await repositoryWithLinks();
    const run = await runCli(['validate', 'tools/link/TOOL.hdlp'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.stdout.trim()).toBe('tools/link/TOOL.hdlp:1:1: error: TOOL.hdlp must be a regular file (not a symlink, folder or device)');
    expect(run.code).toBe(1);
  });
});
