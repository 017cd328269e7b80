import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { makeTempDir } from '../helpers/git.js';
import { SERVE_ANNOUNCE } from '../helpers/serve-process.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review N (N26): the README's one line of an MCP client's configuration set HLDP_TOKEN and nothing else. A client
// starts `hldp mcp` with only the environment the line gives, so where principals are configured (in a config file)
// the server found none, refused the token, and told the user to unset it: the agent then ran as 'local', every
// role. These tests run the README's lines as written, with the MCP SDK's client, against real processes.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BOT = 'bot-token-0123456789abcdef';

interface StdioLine { command: string; args: string[]; env: Record<string, string> }
interface HttpLine { type: string; url: string; headers: Record<string, string> }

/** The `brush-holder` entries of the client configuration lines in the README's MCP section, in order. */
async function readmeLines(): Promise<[StdioLine, HttpLine]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## MCP\n'), readme.indexOf('\n## MCP servers behind the registry\n'));
  const lines = section.split('\n').filter((line) => line.startsWith('{ "mcpServers"')).map((line) => (JSON.parse(line) as { mcpServers: Record<string, unknown> }).mcpServers['brush-holder']);
  expect(lines).toHaveLength(2);
  return lines as [StdioLine, HttpLine];
}

let temp: { path: string; cleanup: () => Promise<void> };
let configFile: string;
let stdio: StdioLine;
let http: HttpLine;
let server: ServiceProcess;

/** Fills in the README's placeholders: this checkout, the test's config file, a token, the server's address. */
function filled(text: string, token: string): string {
  return text.replaceAll('/path/to/brush-holder.yaml', configFile).replaceAll('/path/to/brush-holder/', ROOT).replaceAll('…', token).replaceAll('http://127.0.0.1:3900', server.url);
}

/** Who read the workspace's hello.txt through `file-read` (a tool of the `repo` toolset), by the receipt. */
async function readHello(client: Client): Promise<{ caller: unknown; output: unknown }> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toContain('file-read');
  const result = (await client.callTool({ name: 'file-read', arguments: { path: 'hello.txt' } })) as CallToolResult;
  const receipt = result.structuredContent as { caller: unknown; output: unknown };
  return { caller: receipt.caller, output: receipt.output };
}

describe("the README's MCP client configuration lines, with principals (review N, N26)", () => {
  beforeAll(async () => {
    temp = await makeTempDir('hldp-readme-mcp-');
    await mkdir(join(temp.path, 'workspace'));
    await writeFile(join(temp.path, 'workspace', 'hello.txt'), 'hello from the workspace\n');
    configFile = join(temp.path, 'brush-holder.yaml');
    await writeFile(configFile, [
      `repository: { source: ${JSON.stringify(join(ROOT, 'native-repo'))} }`,
      `workspace_root: ${JSON.stringify(join(temp.path, 'workspace'))}`,
      `data_dir: ${JSON.stringify(join(temp.path, 'data'))}`,
      `cache_dir: ${JSON.stringify(join(temp.path, 'cache'))}`,
      'principals:',
      `  bot: { roles: [agent], tools: [git-ops, file-read, file-write], token_sha256: ${hashToken(BOT)} }`,
      '',
    ].join('\n'));
    [stdio, http] = await readmeLines();
    server = await spawnService(['serve', '--config', configFile, '--port', '0'], { HLDP_LOG_LEVEL: 'warn' }, SERVE_ANNOUNCE);
  });
  afterAll(async () => {
    await server?.stop();
    await temp?.cleanup();
  });

  describe('the stdio line', () => {
    const transport = (token: string): StdioClientTransport => {
      const line = JSON.parse(filled(JSON.stringify(stdio), token)) as StdioLine;
      // as a client starts it: only the line's environment (the SDK adds HOME, PATH and the like), a folder of its own
      return new StdioClientTransport({ command: line.command, args: line.args, env: line.env, cwd: temp.path, stderr: 'pipe' });
    };

    it('starts hldp mcp for the principal whose token it gives', async () => {
      const client = new Client({ name: 'readme-stdio', version: '0.0.0' });
      await client.connect(transport(BOT));
      try {
        expect(await readHello(client)).toEqual({ caller: 'bot', output: 'hello from the workspace\n' });
      } finally {
        await client.close();
      }
    });

    it('with a token no principal has, stops and says so, without advising to drop the token', async () => {
      const line = transport('not-a-token-of-anyone-0123');
      let stderr = '';
      line.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ended = new Promise((resolve) => line.stderr!.once('end', resolve));
      await expect(new Client({ name: 'readme-stdio', version: '0.0.0' }).connect(line)).rejects.toThrow();
      await ended;
      expect(stderr).toContain(`HLDP_TOKEN is not the token of any principal configured in ${configFile} (bot): check the token`);
    });
  });

  describe('the HTTP line', () => {
    it('reaches hldp serve for the principal whose token it gives', async () => {
      const line = JSON.parse(filled(JSON.stringify(http), BOT)) as HttpLine;
      expect(line.type).toBe('http');
      const client = new Client({ name: 'readme-http', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(line.url), { requestInit: { headers: line.headers } }));
      try {
        expect(await readHello(client)).toEqual({ caller: 'bot', output: 'hello from the workspace\n' });
      } finally {
        await client.close();
      }
    });
  });
});
