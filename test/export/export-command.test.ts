import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();

describe('hldp export', () => {
  describe('when asked for a format without --json', () => {
    it.each([
      ['openai', (spec: any) => spec.function.name, { type: 'function', function: { name: 'shell-exec', parameters: { type: 'object' } } }],
      ['anthropic', (spec: any) => spec.name, { name: 'shell-exec', input_schema: { type: 'object' } }],
      ['mcp', (spec: any) => spec.name, { name: 'shell-exec', title: 'Shell命令执行', inputSchema: { type: 'object' } }],
    ])('prints the %s tools array, ready for a request', async (format, nameOf, shellSpec) => {
      const run = await runCli(['export', '--format', format], { env: home.env });
      expect(run.code).toBe(0);
      const tools = JSON.parse(run.stdout) as unknown[];
      expect(tools.map(nameOf)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'file-read', 'file-write', 'git-ops', 'http-request', 'shell-exec']);
      expect(tools.at(-1)).toMatchObject(shellSpec);
    });
  });

  describe('when --json is given and a name must change', () => {
    it('prints the document with the table back to registry names, and names the rename on stderr without --json', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/deploy.prod/TOOL.hdlp': makeToolYaml('deploy.prod') });
      const run = await runCli(['export', '--format', 'openai', '--repo', repo, '--json'], { env: home.env });
      expect(run.code).toBe(0);
      const document = JSON.parse(run.stdout);
      expect(document).toMatchObject({ format: 'openai', commit: expect.stringMatching(/^[0-9a-f]{40}$/), meta_tools: expect.objectContaining({ tool_find: 'POST /v1/match', confirm: 'POST /v1/confirm' }) });
      expect(document.names).toEqual({ deploy_prod_845c54e5: 'deploy.prod' });
      const plain = await runCli(['export', '--format', 'openai', '--repo', repo], { env: home.env });
      expect(plain.stderr).toBe("renamed for openai: 'deploy.prod' is exported as 'deploy_prod_845c54e5' (use --json for the table)\n");
    });
  });

  describe('when tools are named after the fingerprinted forms of another, at every length', () => {
    it('exports every tool under a distinct MCP name instead of dying', async () => {
      const fingerprint = (length: number) => createHash('sha256').update('a.b').digest('hex').slice(0, length);
      const names = ['a.b', ...[8, 16, 32, 64].map((length) => `a_b_${fingerprint(length)}`)];
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, Object.fromEntries(names.map((name) => [`tools/${name}/TOOL.hdlp`, makeToolYaml(name)])));
      const run = await runCli(['export', '--format', 'mcp', '--repo', repo, '--json'], { env: home.env });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const exported = (JSON.parse(run.stdout).tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(new Set(exported).size).toBe(exported.length);
      expect(exported).toEqual(expect.arrayContaining([...names.slice(1), `a_b_${fingerprint(8)}_2`]));
    });
  });

  describe('when the format is missing or unknown', () => {
    it.each([[['export']], [['export', '--format', 'gemini']]])('answers %j with exit 2 and the formats', async (args) => {
      const run = await runCli(args, { env: home.env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--format must be one of openai, anthropic, mcp/);
    });
  });
});
