import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review K, K11: a remote gatekeeper's answer was stored as it came — 60 KiB of output for a tool capped at 1000
// bytes, with the remote's own `output_bytes: 10`. The gateway now holds it to the tool's cap and recounts. A real
// `hldp serve` over a real repository, its gatekeeper a real HTTP server on 127.0.0.1.

const API_TOKEN = 'api-token-gatekeeper-capped-0123456';
const GATEKEEPER_TOKEN = 'gatekeeper-token-capped-0123456789';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const OUTPUT = 'x'.repeat(60 * 1024);
const HUGE = 'y'.repeat(5 * 1024 * 1024);
const STALLED_LINES = 20_000;

let temp: { path: string; cleanup: () => Promise<void> };
let fake: Server;
let gateway: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir();
  fake = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const cmd = JSON.parse(Buffer.concat(chunks).toString('utf8')).params.cmd;
      if (cmd === 'stall') {
        // the start of an answer, 100,000 bytes of output in it, and then nothing, past the call's deadline
        answer.setHeader('content-type', 'application/json');
        answer.write(`{"ok":true,"exit_code":0,"output":"${'line\\n'.repeat(STALLED_LINES)}`);
        return;
      }
      // params.cmd 'huge': an output of 5 MiB, past the body the gateway reads for a tool capped at 1000 bytes
      const huge = cmd === 'huge';
      answer.setHeader('content-type', 'application/json');
      answer.end(JSON.stringify({ ok: true, output: huge ? HUGE : OUTPUT, error: null, stderr: 'e'.repeat(5000), code: null, exit_code: 0, signal: null, timed_out: false, output_bytes: 10, cut_bytes: 0, duration_ms: 1 }));
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/remote-exec/TOOL.hdlp': makeToolYaml('remote-exec', { method: 'exec', params_schema: '{ cmd: { type: string, required: true } }', gatekeeper: '{ target: remote }', constraints: '{ max_output_bytes: 1000 }' }),
    'tools/remote-brief/TOOL.hdlp': makeToolYaml('remote-brief', { method: 'exec', params_schema: '{ cmd: { type: string, required: true } }', gatekeeper: '{ target: remote }', constraints: '{ timeout_ms: 500, max_output_bytes: 1000 }' }),
  });
  const config = join(temp.path, 'config.yaml');
  await writeFile(config, `gatekeepers:\n  remote:\n    url: http://127.0.0.1:${(fake.address() as AddressInfo).port}\n    token: ${GATEKEEPER_TOKEN}\n`);
  gateway = await spawnService(
    ['serve', '--port', '0', '--repo', repo, '--config', config],
    { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: API_TOKEN },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  await gateway?.stop();
  fake?.closeAllConnections();
  await new Promise((resolve) => fake?.close(resolve));
  await temp?.cleanup();
});

describe("a remote gatekeeper's answer", () => {
  it("is held to the tool's max_output_bytes, cut with the marker, and counted as what arrived", async () => {
    const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'remote-exec', params: { cmd: 'anything' } }, headers: auth });
    expect(response.status).toBe(200);
    const receipt = response.json;
    expect(receipt).toMatchObject({ ok: true });
    expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(receipt.stderr)).toBeLessThanOrEqual(1000);
    expect(receipt.output).toMatch(/\[… \d+ bytes cut of 61440 …\]/);
    expect(receipt.output_bytes).toBeGreaterThanOrEqual(61_440 + 5000);
    expect(receipt.cut_bytes).toBeGreaterThan(61_440 + 5000 - 2000);
  });

  // Review K, K11: past 12 × max_output_bytes + 64 KiB the answer was dropped whole — first as INTERNAL_ERROR "a body
  // that is not JSON", then as INTERNAL_ERROR naming its size: the receipt kept nothing of what the tool printed, where
  // a local tool's over-cap output keeps its head and tail.
  describe('when its body is far past the tool\'s cap (5 MiB of output for 1000 bytes), from a local server implementing the /exec contract', () => {
    it('keeps the head and tail of its output as a local run does, the cut marked, the counts the gateway\'s own', async () => {
      const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'remote-exec', params: { cmd: 'huge' } }, headers: auth });
      expect(response.status).toBe(200);
      const receipt = response.json;
      expect(receipt).toMatchObject({ ok: true, code: null, tool: 'remote-exec', exit_code: 0 });
      expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(1000);
      expect(receipt.output).toMatch(new RegExp(`^y+\\n\\[… \\d+ bytes cut of ${HUGE.length} …\\]\\ny+$`));
      expect(receipt.stderr).toMatch(/\[… \d+ bytes cut of 5000 …\]/);
      // the remote said output_bytes: 10
      expect(receipt.output_bytes).toBe(HUGE.length + 5000);
      expect(receipt.cut_bytes).toBe(HUGE.length + 5000 - Buffer.byteLength(receipt.output.replace(/\n\[… .* …\]\n/, '')) - Buffer.byteLength(receipt.stderr.replace(/\n\[… .* …\]\n/, '')));
      expect((await request(gateway, 'GET', `/v1/receipts/${receipt.id}`, { headers: auth })).json).toEqual(receipt);
    });
  });

  // Review O, O7: a deadline that passed while the answer was read left a receipt with nothing (TIMEOUT, output_bytes 0)
  describe('when it stops coming midway, past the deadline (timeout_ms 500 and the 2 s of slack)', () => {
    it('fails as TIMEOUT and keeps the output read until then, cut to the cap and counted', async () => {
      const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'remote-brief', params: { cmd: 'stall' } }, headers: auth });
      expect(response.status).toBe(200);
      const receipt = response.json;
      expect(receipt).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true, output_bytes: 5 * STALLED_LINES });
      expect(receipt.error).toMatch(/the answer stopped after \d+ bytes: the output read until then is kept/);
      expect(Buffer.byteLength(receipt.output)).toBeLessThanOrEqual(1000);
      expect(receipt.output).toMatch(new RegExp(`^(line\\n)+(line?|lin|li|l)?\\n\\[… \\d+ bytes cut of ${5 * STALLED_LINES} …\\]\\n`));
      expect(receipt.cut_bytes).toBe(5 * STALLED_LINES - Buffer.byteLength(receipt.output.replace(/\n\[… .* …\]\n/, '')));
    });
  });
});
