import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { nameFingerprint } from '../../src/export/index.js';
import type { Gateway } from '../../src/gateway/service/index.js';
import { mountMcp } from '../../src/mcp-front/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { callTool, connectHttp, firstText, makeClient, nextToolListChange, type HttpConnected } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const shellTool = (name: string, argv: string) => makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${argv} }` });

async function repositoryWith(files: Record<string, string>): Promise<string> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, files);
  return repo;
}

async function connect(repo: string): Promise<HttpConnected> {
  const connected = await connectHttp(repo);
  cleanups.push(connected.close);
  return connected;
}

/** A raw HTTP request, so that headers such as Host can be set as a browser under DNS rebinding would send them. */
/** A request as no client library sends it: `body` as JSON, or `text` as it is (JSON too deep to stringify). */
function rawRequest(url: string, options: { method: string; headers?: Record<string, string>; body?: unknown; text?: string }): Promise<{ status: number; body: string; session: string | undefined }> {
  return new Promise((resolve, reject) => {
    const body = options.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const request = httpRequest(url, { method: options.method, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...options.headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, session: response.headers['mcp-session-id'] as string | undefined }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** A gateway over native-repo with MCP mounted on a server of its own, closed after the test. */
async function mountedGateway(options?: Parameters<typeof mountMcp>[2]): Promise<{ gateway: Gateway; url: URL; handler: ReturnType<typeof mountMcp> }> {
  const opened = await openTestGateway('native-repo');
  cleanups.push(opened.cleanup);
  const app = express();
  const handler = mountMcp(app, opened.gateway, options);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  cleanups.push(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { gateway: opened.gateway, url: new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`), handler };
}

describe('MCP over Streamable HTTP', () => {
  describe('when a rescan finds a new TOOL.hdlp', () => {
    it('sends notifications/tools/list_changed, and the next tools/list has the tool', async () => {
      const repo = await repositoryWith({ 'tools/first/TOOL.hdlp': shellTool('first', '[echo, first]') });
      const { client, gateway, notificationStream } = await connect(repo);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'first']);
      await notificationStream;
      const changed = nextToolListChange(client);
      await commitFiles(repo, { 'tools/second/TOOL.hdlp': shellTool('second', '[echo, second]') });
      expect(await gateway.rescan()).toMatchObject({ changed: true });
      await changed;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait', 'first', 'second']);
      expect(firstText(await callTool(client, 'second'))).toBe('second\n');
    });
  });

  describe('when a call runs', () => {
    it('stores the same receipt POST /v1/call would, through gateway.call', async () => {
      const { client, gateway } = await connect('native-repo');
      const result = await callTool(client, 'shell-exec', { cmd: 'echo stored' });
      expect(await gateway.receipts()).toEqual([result.structuredContent]);
    });
  });

  describe('when registry names clash with the meta-tools or do not fit', () => {
    // a registry tool named as a meta-tool is refused at scan (RESERVED_NAME, review N, N5): it is never listed
    it('lists a name that does not fit with a fingerprint suffix, routes calls back, and never shadows tool_find', async () => {
      const repo = await repositoryWith({
        'tools/tool_find/TOOL.hdlp': shellTool('tool_find', '[echo, registry tool_find]'),
        'tools/deploy.prod/TOOL.hdlp': makeToolYaml('deploy.prod', { executor: 'shell', method: 'run', shell: '{ argv: [echo, deployed] }', intent: 'deploy the production site' }),
      });
      const { client } = await connect(repo);
      const deploy = `deploy_prod_${nameFingerprint('deploy.prod')}`;
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool._meta?.['hldp/name']])).toEqual([
        ...['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait'].map((name) => [name, undefined]),
        [deploy, 'deploy.prod'],
      ]);
      expect(firstText(await callTool(client, deploy))).toBe('deployed\n');
      const found = await callTool(client, 'tool_find', { intent: 'deploy the production site' });
      expect(found.structuredContent).toMatchObject({ found: true, candidates: [{ name: deploy }] });
    });
  });

  describe('when requests do not belong to an open session', () => {
    it.each([
      ['a POST that is not initialize', 'POST', {}, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 400],
      ['a GET without a session', 'GET', {}, undefined, 400],
      ['an unknown session id', 'POST', { 'mcp-session-id': 'no-such-session' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 404],
    ])('answers %s with a JSON-RPC error and status %s', async (_label, method, headers, body, status) => {
      const { url, handler } = await connect('native-repo');
      const response = await rawRequest(url, { method, headers, ...(body ? { body } : {}) });
      expect(response.status).toBe(status);
      expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
      expect(handler.sessionCount).toBe(1);
    });
  });

  describe('when the Host header is not a loopback name', () => {
    it('answers 403 (DNS-rebinding protection)', async () => {
      const { url } = await connect('native-repo');
      const response = await rawRequest(url, { method: 'POST', headers: { host: 'attacker.example' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect(response.status).toBe(403);
    });
  });

  describe('when the client ends its session', () => {
    it('closes it on the server', async () => {
      const { client, handler } = await connect('native-repo');
      expect(handler.sessionCount).toBe(1);
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      expect(handler.sessionCount).toBe(0);
    });
  });

  describe('when more sessions open than maxSessions', () => {
    it('closes the least recently used in memory, and restores it from the store when its client comes back', async () => {
      const { url, handler } = await mountedGateway({ maxSessions: 1 });
      const first = makeClient();
      const second = makeClient();
      await first.connect(new StreamableHTTPClientTransport(url));
      await second.connect(new StreamableHTTPClientTransport(url));
      cleanups.push(() => first.close(), () => second.close());
      expect(handler.sessionCount).toBe(1);
      await expect(second.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
      await expect(first.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
      expect(handler.sessionCount).toBe(1);
    });

    it('restores an evicted session with the toolsets it was opened with (/mcp?toolsets=repo)', async () => {
      const { url, handler } = await mountedGateway({ maxSessions: 1 });
      const base = url.href;
      const withRepo = makeClient();
      const plain = makeClient();
      await withRepo.connect(new StreamableHTTPClientTransport(new URL(`${base}?toolsets=repo`)));
      cleanups.push(() => withRepo.close(), () => plain.close());
      const listed = (await withRepo.listTools()).tools.map((tool) => tool.name);
      await plain.connect(new StreamableHTTPClientTransport(new URL(base)));
      const plainListed = (await plain.listTools()).tools.map((tool) => tool.name);
      expect(plainListed).not.toEqual(listed);
      // the plain client evicted it: listing again restores it from the store, toolsets and all
      expect((await withRepo.listTools()).tools.map((tool) => tool.name)).toEqual(listed);
    });

    it('answers 404 to a session its client ended with DELETE, at every instance sharing the store', async () => {
      const { gateway, url } = await mountedGateway();
      const client = makeClient();
      const transport = new StreamableHTTPClientTransport(url);
      await client.connect(transport);
      cleanups.push(() => client.close());
      const id = transport.sessionId!;
      expect(await gateway.store.mcpSessions.get(id)).toMatchObject({ id, initialize: { clientInfo: { name: 'brush-holder-test' } } });
      await transport.terminateSession();
      expect(await gateway.store.mcpSessions.get(id)).toBeUndefined();
      const response = await rawRequest(url.toString(), { method: 'POST', headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect(response.status).toBe(404);
    });

    // review M, M5: what the store keeps of an initialize was made with JSON.stringify of the capabilities, outside
    // the catch of the store's write: capabilities nested 150,000 levels made the initialize a 400 "Parse error"
    it('opens a session for an initialize whose capabilities nest deeper than JSON.stringify can go, keeping their names', async () => {
      const { gateway, url } = await mountedGateway();
      const depth = 150_000;
      const capabilities = `{"deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
      const text = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":${capabilities},"clientInfo":{"name":"deep-client","version":"1"}}}`;
      const answer = await rawRequest(url.toString(), { method: 'POST', text });
      expect(answer.status, answer.body).toBe(200);
      expect(answer.session).toBeDefined();
      expect(await gateway.store.mcpSessions.get(answer.session!)).toMatchObject({ initialize: { capabilities: { deep: {} }, clientInfo: { name: 'deep-client' } } });
    });
  });
});
