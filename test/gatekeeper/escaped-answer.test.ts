import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review O, O7: the gateway read a gatekeeper's answer at ~2 µs of its main thread an escape, one Buffer or four a
// character. A gatekeeper's answer is JSON.stringify's, so a tool printing 16 MB of NULs (`\u0000`, 6 bytes each) made
// the read outlast a 120 s deadline, and the receipt kept nothing (TIMEOUT, output_bytes 0) for a tool that ran in
// milliseconds; 1 MB of `yes a` cost 2.5 s of the gateway's CPU. A real `hldp serve` and a real `hldp gatekeeper`
// process over a real repository.

const API_TOKEN = 'api-token-escaped-answer-0123456789';
const GATEKEEPER_TOKEN = 'gatekeeper-token-escaped-answer-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const NULS = 8_000_000;

let temp: { path: string; cleanup: () => Promise<void> };
let gatekeeper: ServiceProcess;
let gateway: ServiceProcess;

// the CPU time (user and system) a process has used, in seconds, from /proc
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // utime and stime, fields 14 and 15 of stat, in clock ticks (100 a second on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/print/TOOL.hdlp': makeToolYaml('print', { params_schema: '{ cmd: { type: string, required: true } }', gatekeeper: '{ target: remote }', constraints: `{ timeout_ms: 120000, max_output_bytes: ${8 * 1024 * 1024} }` }),
  });
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', temp.path], { ...env, HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
  const config = join(temp.path, 'config.yaml');
  await writeFile(config, `gatekeepers:\n  remote:\n    url: ${gatekeeper.url}\n    token: ${GATEKEEPER_TOKEN}\n`);
  gateway = await spawnService(['serve', '--port', '0', '--repo', repo, '--config', config], { ...env, HLDP_API_TOKEN: API_TOKEN }, / at (http:\/\/[\d.:]+)\n/);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await gatekeeper?.stop();
  await temp?.cleanup();
});

describe("a real gatekeeper's answer full of escapes", () => {
  it('is read whole: 8 MB of NULs (48 MB of \\u0000) comes back ok, the gateway spending under 15 s of CPU on the call (27 s before, 3.9 s now, at load 15)', async () => {
    const before = cpuSeconds(gateway.child.pid!);
    const response = await request(gateway, 'POST', '/v1/call', { body: { tool: 'print', params: { cmd: `head -c ${NULS} /dev/zero` } }, headers: auth });
    const spent = cpuSeconds(gateway.child.pid!) - before;
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ ok: true, code: null, exit_code: 0, output_bytes: NULS, cut_bytes: 0 });
    expect(response.json.output).toBe('\0'.repeat(NULS));
    // the old reader's ~2 µs an escape was 16 s or more for these alone (26.7 s for the call at load 15); the reader now
    // takes ~0.3 s, and most of the rest (3.9 s at load 15) is the call's own: its receipt of 8 MB NULs kept and sent as JSON
    // the bound sits halfway in the gap, so a loaded CI machine's slower CPU seconds do not decide it
    expect(spent).toBeLessThan(15);
  }, 120_000);
});
