import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-registry-warnings-');

describe('hldp scan', () => {
  describe('when --repo holds no tools/ folder', () => {
    it('exits 0 but warns, naming the repository and where tools are read from', async () => {
      const empty = join(folder.path, 'project');
      await mkdir(empty);
      const run = await runCli(['scan', '--repo', empty], { env: folder.cliEnv() });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`tools:1:1: warning: no tool in ${empty}: tools are read from tools/<name>/TOOL.hdlp at the repository's root, and there is none`);
    });

    it('says so in --json, for a git repository whose tools sit one folder down', async () => {
      const repo = await initRepository(join(folder.path, 'repo'));
      await commitFiles(repo, { 'registry/tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const run = await runCli(['scan', '--repo', repo, '--json'], { env: folder.cliEnv() });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ tools: [], warnings: [{ file: 'tools', severity: 'warning', code: 'NO_TOOLS', message: expect.stringContaining(`no tool in ${repo}`) }] });
    });
  });

  describe('when --repo holds a tool', () => {
    it('does not warn that there is none', async () => {
      await writeFiles(folder.path, { 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const run = await runCli(['scan', '--repo', folder.path, '--json'], { env: folder.cliEnv() });
      expect(JSON.parse(run.stdout).warnings).toEqual([]);
    });
  });
});

describe('hldp serve', () => {
  const home = useServiceHome('warn');

  describe('when --repo holds no tools/ folder', () => {
    it('warns at start, naming the path it expected', async () => {
      const empty = join(home.path, 'project');
      await mkdir(empty);
      const service = await home.serve(['--repo', empty]);
      expect(service.stderr()).toContain(`hldp: WARNING: no tool in ${empty}: tools are read from tools/<name>/TOOL.hdlp at the repository's root`);
      expect(service.stderr()).toMatch(/serving 0 tools from /);
    });
  });
});
