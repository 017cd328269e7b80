import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { request, startTestServer } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { mcpToolYaml, nodeServer, writeMcpConfig } from './support.js';

const ERROR_SERVER = fileURLToPath(new URL('./fixtures/error-server.mjs', import.meta.url));
const FAIL = '{ code: { type: integer, required: true }, size: { type: integer } }';

let server: Awaited<ReturnType<typeof startTestServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-error-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/fail/TOOL.hdlp': mcpToolYaml('fail', 'errors', 'fail', FAIL, '{ max_output_bytes: 1024 }'),
    'tools/fail-idempotent/TOOL.hdlp': mcpToolYaml('fail-idempotent', 'errors', 'fail', FAIL, '{}', { idempotent: true }),
    'tools/wait/TOOL.hdlp': mcpToolYaml('wait', 'errors', 'wait', '{ ms: { type: integer, required: true } }', '{ timeout_ms: 60000 }'),
    'tools/runs/TOOL.hdlp': mcpToolYaml('runs', 'errors', 'runs', '{}'),
  });
  const config = await writeMcpConfig(temp.path, { errors: nodeServer(ERROR_SERVER) });
  server = await startTestServer(repo, { HLDP_CONFIG: config });
});
afterAll(async () => {
  await server.cleanup();
  await temp.cleanup();
});

const call = async (tool: string, params: Record<string, unknown>) => (await request(server, 'POST', '/v1/call', { body: { tool, params } })).json;

describe('an MCP server that answers tools/call with a JSON-RPC error', () => {
  describe('when the code is -32000, the first of JSON-RPC’s server-error range (and the SDK’s own "connection closed")', () => {
    it('returns MCP_ERROR, and the server and the other calls in flight on it go on (found in review)', async () => {
      const before = (await call('runs', {})).output as string;
      const waiting = call('wait', { ms: 1500 });
      const failed = await call('fail', { code: -32000 });
      expect(failed).toMatchObject({ ok: false, code: 'MCP_ERROR' });
      expect(failed.error).toMatch(/MCP server 'errors' answered tools\/call of 'fail' with an error: MCP error -32000: E{10}/);
      expect(await waiting).toMatchObject({ ok: true, output: 'waited 1500 ms' });
      // the same process, which saw that one call
      const process = before.split(' in process ')[1];
      expect((await call('runs', {})).output).toBe(`${Number(before.split(' ')[0]) + 1} in process ${process}`);
    });

    it('does not run a call of an idempotent tool a second time: its server answered (found in review)', async () => {
      const before = Number(((await call('runs', {})).output as string).split(' ')[0]);
      expect(await call('fail-idempotent', { code: -32000 })).toMatchObject({ ok: false, code: 'MCP_ERROR' });
      expect(Number(((await call('runs', {})).output as string).split(' ')[0])).toBe(before + 1);
    });
  });

  describe('when its message is past the tool’s max_output_bytes', () => {
    it('bounds it in the receipt as output is, the cut marked and counted (found in review)', async () => {
      const failed = await call('fail', { code: -32603, size: 5 * 1024 * 1024 });
      expect(failed).toMatchObject({ ok: false, code: 'MCP_ERROR' });
      expect(Buffer.byteLength(failed.error)).toBeLessThanOrEqual(1024);
      expect(failed.error).toMatch(/^MCP server 'errors' answered tools\/call of 'fail' with an error: MCP error -32603: E+\n\[… \d+ bytes cut of \d+ …\]\nE+$/);
      expect(failed.cut_bytes).toBeGreaterThan(5 * 1024 * 1024 - 1024);
      expect((await request(server, 'GET', `/v1/receipts/${failed.id}`)).json).toEqual(failed);
    });
  });

  describe('when it answers tools/list of hldp import mcp with an error of 5 MiB', () => {
    it('prints a bounded message, the cut marked (found in review)', async () => {
      // a config of its own: the gateway's stays as it was
      const config = await writeMcpConfig(await mkdir(join(temp.path, 'import'), { recursive: true }).then(() => join(temp.path, 'import')), { errors: nodeServer(ERROR_SERVER, [], { env: { LIST_ERROR_SIZE: String(5 * 1024 * 1024) } }) });
      const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_CONFIG: config };
      const run = await runCli(['import', 'mcp', '--server', 'errors', '--out', join(temp.path, 'imported')], { env });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/MCP server 'errors' answered tools\/list with an error: MCP error -32603: L+\n\[… \d+ bytes cut of \d+ …\]\nL+/);
      expect(run.stdout.length + run.stderr.length).toBeLessThan(128 * 1024);
    });
  });
});
