import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review K, K6: a definition set max_output_bytes up to 1 GiB per channel, all of it held in the gateway's heap (1.6 GB
// RSS for one call; past ~512 MB an INTERNAL_ERROR receipt with output_bytes 0). The gateway's max_output_bytes caps
// every tool's cap, as max_call_timeout_ms caps deadlines; a real `hldp serve` and `hldp call` over a real repository.

const API_TOKEN = 'api-token-output-ceiling-0123456789';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const CEILING = 4096;

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let gateway: ServiceProcess;
const env = () => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: API_TOKEN });

beforeAll(async () => {
  temp = await makeTempDir();
  repo = await initRepository(join(temp.path, 'repo'));
  const bigout = (name: string, cap: number) =>
    makeToolYaml(name, { executor: 'shell', method: 'run', params_schema: '{ n: { type: integer, required: true } }', shell: '{ argv: [head, -c, "{n}", /dev/zero] }', constraints: `{ max_output_bytes: ${cap} }` });
  await commitFiles(repo, {
    'tools/bigout/TOOL.hdlp': bigout('bigout', 64 * 1024 * 1024),
    // past the schema's maximum (256 MiB): no definition holds a GiB per channel
    'tools/gigout/TOOL.hdlp': bigout('gigout', 1_073_741_824),
  });
  gateway = await spawnService(['serve', '--port', '0', '--repo', repo], { ...env(), HLDP_MAX_OUTPUT_BYTES: String(CEILING) }, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await gateway?.stop();
  await temp?.cleanup();
});

describe("the gateway's max_output_bytes", () => {
  it("cuts a tool's larger cap to it: head and tail with the marker, every byte counted", async () => {
    const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'bigout', params: { n: 100_000 } }, headers: auth });
    expect(response.status).toBe(200);
    const receipt = response.json;
    expect(receipt).toMatchObject({ ok: true, exit_code: 0, output_bytes: 100_000 });
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(CEILING);
    expect(receipt.output).toContain(`bytes cut of 100000 …]`);
    expect(receipt.cut_bytes).toBeGreaterThan(100_000 - CEILING);
  });

  it('holds for `hldp call` too', async () => {
    const run = await runCli(['call', 'bigout', '--params', '{"n":100000}', '--json', '--repo', repo], { env: { ...env(), HLDP_DATA_DIR: join(temp.path, 'cli-data'), HLDP_MAX_OUTPUT_BYTES: String(CEILING) } });
    const receipt = JSON.parse(run.stdout);
    expect(receipt).toMatchObject({ ok: true, output_bytes: 100_000 });
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(CEILING);
  });

  it('refuses a definition whose cap is past the schema maximum of 256 MiB', async () => {
    const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'gigout', params: { n: 10 } }, headers: auth });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ code: 'TOOL_BROKEN', diagnostics: [{ code: 'SCHEMA_VIOLATION', message: "'constraints.max_output_bytes' must be <= 268435456" }] });
  });
});
