// Review N, N5: the meta-tools named in POST /v1/call without a session were answered as missing registry tools, with
// the advice to write tools/toolset/TOOL.hdlp; and a registry tool could be named (or aliased) `confirm`, reached
// without a session and shadowed by the meta-tool in one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESERVED_TOOL_NAMES } from '../../src/core/index.js';
import { META_TOOLS, RESERVED_NAMES } from '../../src/export/index.js';
import { commitFiles, initRepository, makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('the meta-tools over HTTP', () => {
  describe('when a call names one without a session', () => {
    it('answers 400 SESSION_REQUIRED saying how to open a session, for each of them, and runs it in one', async () => {
      const server = await home.serve();
      for (const tool of META_TOOLS) {
        const response = await post(server.url, '/v1/call', { tool: tool.name, params: {} });
        const body = (await response.json()) as { code: string; error: string };
        expect(response.status, tool.name).toBe(400);
        expect(body.code).toBe('SESSION_REQUIRED');
        expect(body.error).toContain(`'${tool.name}' is one of the gateway's meta-tools, answered only in a session: open one with POST /v1/sessions`);
        expect(body.error).toContain('X-HLDP-Session');
        expect(body.error).not.toContain('TOOL.hdlp');
      }
      const find = (await (await post(server.url, '/v1/call', { tool: 'tool_find', params: { intent: 'run a command' } })).json()) as { error: string };
      expect(find.error).toMatch(/without a session, POST \/v1\/match does what 'tool_find' does$/);
      const session = (await (await post(server.url, '/v1/sessions', {})).json()) as { id: string };
      const listed = await post(server.url, '/v1/call', { tool: 'toolset', params: { action: 'list' } }, { 'X-HLDP-Session': session.id });
      expect(listed.status).toBe(200);
    });

    it('never advises writing a definition of that name when one is looked up', async () => {
      const server = await home.serve();
      const response = await fetch(`${server.url}/v1/tools/confirm`);
      const body = (await response.json()) as { code: string; suggestion: string };
      expect(response.status).toBe(404);
      expect(body.suggestion).toMatch(/^'confirm' is one of the gateway's meta-tools/);
      expect(body.suggestion).not.toContain('TOOL.hdlp');
    });
  });
});

describe('a registry tool named as a meta-tool', () => {
  it('is the list export reserves', () => {
    expect(new Set(RESERVED_TOOL_NAMES)).toEqual(RESERVED_NAMES);
  });

  it('is refused by hldp validate with file, line and reason, as is such an alias', async () => {
    await writeFiles(home.path, {
      'tools/confirm/TOOL.hdlp': makeToolYaml('confirm'),
      'tools/finder/TOOL.hdlp': makeToolYaml('finder', { aliases: '[find, tool_find]' }),
    });
    const run = await runCli(['validate', 'tools'], { env: home.env, cwd: home.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^tools\/confirm\/TOOL\.hdlp:1:7: error: 'confirm' is a name the gateway keeps for its own meta-tools \(toolset, tool_find, tool_load, tool_call, read_skill, confirm, approval_wait\)/m);
    expect(run.stdout).toMatch(/^tools\/finder\/TOOL\.hdlp:10:\d+: error: alias 'tool_find' is a name the gateway keeps for its own meta-tools/m);
  });

  it('is left out of the served index, which names why, and every other tool is served', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, { 'tools/confirm/TOOL.hdlp': makeToolYaml('confirm'), 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const run = await runCli(['scan', '--repo', repo, '--json'], { env: home.env, cwd: home.path });
    const scan = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string; code: string; line: number }> };
    expect(scan.tools.map((tool) => tool.name)).toEqual(['alpha']);
    expect(scan.errors).toEqual([expect.objectContaining({ file: 'tools/confirm/TOOL.hdlp', code: 'RESERVED_NAME', line: 1 })]);
  });
});
