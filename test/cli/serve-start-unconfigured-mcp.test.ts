// Review userZ11, U11-23: a tool whose executor is `mcp` (a draft of `hldp import mcp`, committed) naming an MCP
// server this gateway's config does not configure was served without a word at start: an agent found it, called it,
// and only then learnt it could not run (EXECUTOR_MISCONFIGURED). A real `hldp serve` of a real git repository, started
// cold and again from its warm scan cache (which makes no definition to find out: the cache keeps each mcp tool's server).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';
import { mcpToolYaml, writeMcpConfig } from '../mcp-servers/support.js';

const home = useServiceHome('warn');

describe('hldp serve over a registry whose mcp tools name a server the config lacks', () => {
  it('names at start each such server, its tools and the setting to add; the other tools serve', async () => {
    const repo = await initRepository(join(home.path, 'repo'));
    await commitFiles(repo, {
      'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hi] }' }),
      'tools/mcp_files_read/TOOL.hdlp': mcpToolYaml('mcp_files_read', 'files', 'read_text_file', '{ path: { type: string, required: true } }'),
      'tools/mcp_files_list/TOOL.hdlp': mcpToolYaml('mcp_files_list', 'files', 'list_directory', '{ path: { type: string, required: true } }'),
      'tools/mcp_docs_get/TOOL.hdlp': mcpToolYaml('mcp_docs_get', 'docs', 'get', '{}'),
    });
    // docs is configured (never reached: nothing here calls it), files is not
    const config = await writeMcpConfig(home.path, { docs: { url: 'http://127.0.0.1:9/mcp' } });
    const warning = "hldp: WARNING: MCP server 'files' is not configured (mcp_servers of the gateway's config: docs): every call of its 2 tools 'mcp_files_list', 'mcp_files_read' fails (EXECUTOR_MISCONFIGURED) until mcp_servers.files is added to the config (--config FILE or HLDP_CONFIG) or the tool's mcp.server names a configured server\n";
    for (const start of ['cold', 'warm']) {
      const server = await home.serve(['--repo', repo, '--config', config]);
      const stderr = server.stderr();
      expect(stderr, start).toContain(warning);
      // said before the line that announces the server, once, and of no configured server
      expect(stderr.indexOf(warning), start).toBeLessThan(stderr.indexOf('hldp: serving 4 tools'));
      expect(stderr.split(warning)).toHaveLength(2);
      expect(stderr).not.toContain("MCP server 'docs'");
      const called = await request(server, 'POST', '/v1/call', { body: { tool: 'greet', params: {} } });
      expect(called.json, start).toMatchObject({ ok: true, output: 'hi\n' });
      await server.stop();
    }
  }, 180_000);
});
