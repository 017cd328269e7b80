import { cp, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// review Z4, F4 / F4b / F7 / F8 / F9: what an hldp-api call sends where, and what a receipt shows of the secrets
const API_TOKEN = 'SECRET-API-TOKEN-789';
const WEBHOOK_SECRET = 'SECRETWEBHOOKPATH42';

function tool(name: string, executor: string, lines: string[], params: string[]): string {
  return [
    `name: ${name}`, `display: ${name}`, `intent: test tool ${name}`, `executor: ${executor}`, ...lines,
    'params_schema:', ...params.map((line) => `  ${line}`),
    'constraints:', '  timeout_ms: 20000', 'author: TEST-001', 'created: 2026-12-06', `why: tests need ${name}`,
  ].join('\n');
}

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let workspace: string;
// a real HTTP server on 127.0.0.1 standing in for the API (behind a Host-routing ingress): it logs every request
let api: Server;
let apiPort: number;
const seen: Array<{ host: string; url: string; authorization: string }> = [];

beforeAll(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  workspace = join(temp.path, 'ws');
  await mkdir(workspace);
  await initRepository(repo);
  await cp('native-repo', repo, { recursive: true });
  await commitFiles(repo, {
    'tools/trace-get/TOOL.hdlp': tool('trace-get', 'hldp-api', ['method: request', 'http:', '  path: /status', '  headers: { x-trace: "{trace}" }'], ['trace: { type: string, required: true }']),
    'tools/item-get/TOOL.hdlp': tool('item-get', 'hldp-api', ['method: request', 'http:', '  path: /items/{id}', '  query: [fields]'], ['id: { type: string, required: true }', 'fields: { type: string }']),
    'tools/file-bytes/TOOL.hdlp': tool('file-bytes', 'gatekeeper', ['method: read_bytes'], ['path: { type: string, required: true }', 'offset: { type: integer }', 'length: { type: integer }']),
  }, 'api and file tools');
  api = createServer((request, response) => {
    request.resume();
    seen.push({ host: request.headers.host ?? '', url: request.url ?? '', authorization: request.headers.authorization ?? '' });
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiPort = (api.address() as AddressInfo).port;
  await writeFile(join(workspace, 'notes.env'), `DEPLOY_KEY=${API_TOKEN}\n`);
});
afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  await temp.cleanup();
});
beforeEach(() => {
  seen.length = 0;
});

async function call(name: string, params: object, apiUrl: string): Promise<{ code: number | null; receipt: Record<string, any> }> {
  const config = join(temp.path, `config-${name}.yaml`);
  await writeFile(config, `apis:\n  default:\n    url: "${apiUrl}"\n    token: ${API_TOKEN}\n`);
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace };
  const run = await runCli(['call', name, '--params', JSON.stringify(params), '--repo', repo, '--config', config, '--json'], { env, timeoutMs: 60_000 });
  expect(run.stdout, run.stderr).not.toBe('');
  return { code: run.code, receipt: JSON.parse(run.stdout) as Record<string, any> };
}

describe('hldp call of an hldp-api tool', () => {
  it('refuses a header value with a line break as INVALID_PARAMS naming the parameter, and sends nothing (F4b)', async () => {
    const { receipt } = await call('trace-get', { trace: 'a\r\nx-injected: 1' }, `http://127.0.0.1:${apiPort}`);
    expect(receipt).toMatchObject({ ok: false, code: 'INVALID_PARAMS' });
    expect(receipt.error).toContain("parameter 'trace'");
    expect(receipt.error).toContain('nothing was sent');
    expect(receipt.error).not.toContain('check before retrying');
    expect(seen).toEqual([]);
  });

  it("joins the tool's path after a configured URL's path and keeps its query apart (F9)", async () => {
    const { receipt } = await call('item-get', { id: '42', fields: 'all' }, `http://127.0.0.1:${apiPort}/v1?appid=KEY123456789`);
    expect(receipt).toMatchObject({ ok: true, output: 'ok' });
    expect(seen).toEqual([{ host: `127.0.0.1:${apiPort}`, url: '/v1/items/42?appid=KEY123456789&fields=all', authorization: `Bearer ${API_TOKEN}` }]);
  });

  it("keeps a webhook URL's secret path out of a CONNECTION_FAILED receipt, the tool's own path readable (F7)", async () => {
    // nothing listens on port 1 (a privileged port): the connection is refused
    const { receipt } = await call('item-get', { id: '42' }, `http://127.0.0.1:1/services/T0000/B0000/${WEBHOOK_SECRET}`);
    expect(receipt).toMatchObject({ ok: false, code: 'CONNECTION_FAILED' });
    expect(JSON.stringify(receipt)).not.toContain(WEBHOOK_SECRET);
    expect(receipt.error).toContain('GET http://127.0.0.1:1/[configured path]/items/42:');
  });
});

describe('hldp validate of an hldp-api tool setting Host (F4)', () => {
  it('reports UNSAFE_HTTP_HEADER at the key, for a fixed host and a parameter-filled one, and exits 1', async () => {
    const folder = join(temp.path, 'validate');
    await initRepository(folder);
    await commitFiles(folder, {
      'tools/site-get/TOOL.hdlp': tool('site-get', 'hldp-api', ['method: request', 'http:', '  path: /status', '  headers:', '    Host: "{site}"', '    transfer-encoding: chunked', '    x-ok: fine'], ['site: { type: string, required: true }']),
    }, 'a tool choosing its host');
    const run = await runCli(['validate', folder], { env: { HLDP_CACHE_DIR: join(temp.path, 'cache-validate') }, cwd: folder });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/tools\/site-get\/TOOL\.hdlp:9:5: error: 'http\.headers' may not set 'Host': the host is the API's: configure apis\.<name>\.url/);
    expect(run.stdout).toMatch(/tools\/site-get\/TOOL\.hdlp:10:5: error: 'http\.headers' may not set 'transfer-encoding'/);
    expect(run.stdout).not.toContain('x-ok');
  });
});

describe("hldp call of the gatekeeper's file methods on a file holding a configured secret (F8)", () => {
  it('redacts it in read_file with encoding base64', async () => {
    const { receipt } = await call('file-read', { path: 'notes.env', encoding: 'base64' }, `http://127.0.0.1:${apiPort}`);
    expect(receipt).toMatchObject({ ok: true });
    expect(Buffer.from(receipt.output as string, 'base64').toString()).toBe('DEPLOY_KEY=[REDACTED]\n');
  });

  it('redacts it in a read_bytes hex dump, offsets kept, also across two windows that each hold part of it', async () => {
    const whole = (await call('file-bytes', { path: 'notes.env' }, `http://127.0.0.1:${apiPort}`)).receipt;
    expect(whole).toMatchObject({ ok: true });
    expect(whole.output).toMatch(/^\[bytes 0-31 of 32\]\n/);
    const bytes = (dump: string): string => [...dump.matchAll(/^[0-9a-f]{8} {2}(.{48})/gm)].map((row) => row[1]!.match(/[0-9a-f]{2}/g)!.map((cell) => String.fromCharCode(Number.parseInt(cell, 16))).join('')).join('');
    expect(bytes(whole.output)).toBe('DEPLOY_KEY=[REDACTED][REDACTED]\n');
    const first = (await call('file-bytes', { path: 'notes.env', length: 18 }, `http://127.0.0.1:${apiPort}`)).receipt;
    const second = (await call('file-bytes', { path: 'notes.env', offset: 18 }, `http://127.0.0.1:${apiPort}`)).receipt;
    expect(first.output).toMatch(/^\[bytes 0-17 of 32; continue with offset 18\]\n00000000 {2}/);
    expect(second.output).toMatch(/^\[bytes 18-31 of 32\]\n00000012 {2}/);
    expect(bytes(first.output) + bytes(second.output)).toBe('DEPLOY_KEY=[REDACTED][REDACTED]\n');
  });
});
