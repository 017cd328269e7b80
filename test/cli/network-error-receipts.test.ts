import { cp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// Receipts of network tools that failed must be honest: an error body cut to the tool's cap says so in cut_bytes.
const ERROR_BODY_BYTES = 100_000;
const CAP = 1000;

function tool(name: string, executor: string, method: string, extra: string): string {
  return [
    `name: ${name}`, `display: ${name}`, `intent: read a file over the network (${name})`, `method: ${method}`, `executor: ${executor}`,
    'params_schema:', '  path: { type: string, required: true }', extra,
    'constraints:', `  max_output_bytes: ${CAP}`, 'author: TEST-001', 'created: 2026-12-02', `why: tests need ${name}`,
  ].join('\n');
}

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let failing: Server;
let failingUrl: string;

beforeAll(async () => {
  temp = await makeTempDir();
  repo = join(temp.path, 'repo');
  await initRepository(repo);
  await cp('native-repo', repo, { recursive: true });
  await commitFiles(repo, {
    'tools/fj-read/TOOL.hdlp': tool('fj-read', 'git-forgejo', 'read_file', ''),
    'tools/gk-read/TOOL.hdlp': tool('gk-read', 'gatekeeper', 'read_file', 'gatekeeper: { target: gk }'),
  }, 'network tools with a small cap');
  await writeFile(join(temp.path, 'config.yaml'), 'gatekeepers:\n  gk: {}\n');
  // a Forgejo or gatekeeper that fails as the contract allows: any request answered 500, with a large body
  failing = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${'E'.repeat(ERROR_BODY_BYTES - 4)}tail`));
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => failing.close(resolve));
  await temp.cleanup();
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path,
    HLDP_FORGEJO_URL: failingUrl, HLDP_FORGEJO_TOKEN: 'forgejo-token-0123456789', HLDP_FORGEJO_REPO: 'o/r',
    HLDP_GATEKEEPER_GK_URL: failingUrl, HLDP_GATEKEEPER_GK_TOKEN: 'gatekeeper-token-0123456789', ...extra,
  };
}

async function call(name: string, extra: NodeJS.ProcessEnv, params = '{"path":"a.txt"}'): Promise<Record<string, any>> {
  const run = await runCli(['call', name, '--params', params, '--repo', repo, '--config', join(temp.path, 'config.yaml'), '--json'], { env: env(extra) });
  expect(run.code, run.stderr).toBe(1);
  return JSON.parse(run.stdout) as Record<string, any>;
}

describe('hldp call of a network tool whose server answers an error larger than the tool cap (found in review E8)', () => {
  it.each([
    ['git-forgejo', 'fj-read'],
    ['gatekeeper', 'gk-read'],
  ])('a %s error is kept under the tool cap, and the receipt counts what was cut', async (_executor, name) => {
    const receipt = await call(name, {});
    expect(receipt).toMatchObject({ ok: false, tool: name, code: 'HTTP_ERROR' });
    expect(receipt.error).toMatch(/answered HTTP 500: E+\n\[… \d+ bytes cut of \d+ …\]\n[E]*tail$/);
    expect(Buffer.byteLength(receipt.error as string)).toBeLessThanOrEqual(CAP);
    expect(receipt.output_bytes).toBeGreaterThanOrEqual(ERROR_BODY_BYTES);
    expect(receipt.cut_bytes).toBeGreaterThan(ERROR_BODY_BYTES - CAP);
    const marker = Number(/\[… (\d+) bytes cut/.exec(receipt.error as string)![1]);
    expect(receipt.cut_bytes).toBe(marker);
  });
});

describe('hldp call of a network tool whose error is cut beside what looks like a secret', () => {
  it('counts what is trimmed beside the cut in cut_bytes as in the marker (a secret ending in E met the E-filled body: CI, an embedded token at random)', async () => {
    // the Forgejo token ends as the body after the cut begins: the cut's tail loses those characters, counted in both
    const receipt = await call('fj-read', { HLDP_FORGEJO_TOKEN: 'forgejo-token-0123456789EEE' });
    expect(receipt).toMatchObject({ ok: false, tool: 'fj-read', code: 'HTTP_ERROR' });
    const marker = Number(/\[… (\d+) bytes cut/.exec(receipt.error as string)![1]);
    expect(receipt.cut_bytes).toBe(marker);
  });
});

describe('hldp call of a network tool whose configured URL holds a credential, when nothing answers (found in review E14)', () => {
  it("keeps the URL's query values and user:password out of the receipt's CONNECTION_FAILED error", async () => {
    // a port that nothing listens on: the failing server's, once closed
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://user:PASSWORDSECRET42@127.0.0.1:${port}/base?api_key=SUPERSECRETKEY123&BARESECRETKEY77`;
    const receipt = await call('http-request', { HLDP_API_DEFAULT_URL: url }, '{"method":"GET","path":"/healthz"}');
    expect(receipt).toMatchObject({ ok: false, tool: 'http-request', code: 'CONNECTION_FAILED' });
    // the configured path is hidden too, the tool's own path after it shown, and the query stays the query (review Z4, F7, F9)
    expect(receipt.error).toContain(`GET http://127.0.0.1:${port}/[configured path]/healthz?api_key=[REDACTED]&[REDACTED]`);
    expect(receipt.error).toContain('ECONNREFUSED');
    for (const secret of ['SUPERSECRETKEY123', 'BARESECRETKEY77', 'PASSWORDSECRET42']) expect(JSON.stringify(receipt)).not.toContain(secret);
  });
});
