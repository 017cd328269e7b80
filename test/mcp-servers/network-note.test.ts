import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { describeWithBubblewrap } from '../sandbox/support/bubblewrap.js';
import { EVERYTHING, mcpToolYaml, nodeServer, writeMcpConfig } from './support.js';

// server-everything's gzip-file-as-resource fetches a URL; inside the sandbox without network even 127.0.0.1 is out
// of reach, and its raw error, "fetch failed", read as the server's bug (review userX, X4)
describeWithBubblewrap('a stdio MCP server without network whose call fails to reach a host', () => {
  let site: Server;
  let url: string;
  let gateway: Awaited<ReturnType<typeof startTestServer>>;
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    site = createServer((_, response) => response.end('hello from the host\n'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(site.address() as { port: number }).port}/file.txt`;
    temp = await makeTempDir('hldp-mcp-network-');
    const repo = await initRepository(join(temp.path, 'repo'));
    const params = '{ name: { type: string }, data: { type: string, required: true }, outputType: { type: string } }';
    await commitFiles(repo, {
      'tools/gzip-nonet/TOOL.hdlp': mcpToolYaml('gzip-nonet', 'nonet', 'gzip-file-as-resource', params),
      'tools/gzip-net/TOOL.hdlp': mcpToolYaml('gzip-net', 'net', 'gzip-file-as-resource', params),
    });
    const env = { env: { GZIP_ALLOWED_DOMAINS: '127.0.0.1' } };
    const config = await writeMcpConfig(temp.path, { nonet: nodeServer(EVERYTHING, [], env), net: { ...nodeServer(EVERYTHING, [], env), sandbox: { ...(nodeServer(EVERYTHING).sandbox as object), network: true } } });
    gateway = await startTestServer(repo, { HLDP_CONFIG: config });
  });
  afterAll(async () => {
    await gateway?.cleanup();
    await temp?.cleanup();
    site?.close();
  });

  const call = async (tool: string) => (await request(gateway, 'POST', '/v1/call', { body: { tool, params: { data: url, outputType: 'resource' } } })).json;

  it('keeps the raw error and says, beside it, that the sandbox took the network away', async () => {
    const failed = await call('gzip-nonet');
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/fetch failed/);
    expect(failed.stderr).toContain("MCP server 'nonet' runs in the sandbox without network (mcp_servers.nonet.sandbox.network is not true)");
  });

  it('says nothing of the kind for a server given the network, whose same call reaches the host', async () => {
    const done = await call('gzip-net');
    expect(done.ok, JSON.stringify(done)).toBe(true);
    expect(done.stderr ?? '').not.toMatch(/without network/);
  });
});
