import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { processesMatching, uniqueSleep } from '../executors/support/processes.js';
import { EVAL_SH } from './support/eval-tool.js';

// Issue #10 item 3, as a user hits it: `setsid sleep 3999 >/dev/null 2>&1 & sleep 0.3` through shell-exec left the
// sleep running under PID 1, after a normal exit and after a timeout. In the default configuration nothing a call
// started may outlive its receipt: on the embedded gatekeeper, the standalone `hldp gatekeeper`, and shell tools.

const GATEKEEPER_TOKEN = 'gatekeeper-token-0123456789abcdef';
// a long deadline for the runs that end on their own (a loaded machine is slow), a short one for those that must time out
const tool = (name: string, executor: string, timeout: number, extra: Readonly<Record<string, string>>) =>
  makeToolYaml(name, { executor, constraints: `{ timeout_ms: ${timeout} }`, ...extra });
const exec = { params_schema: '{ cmd: { type: string, required: true } }' };

let temp: { path: string; cleanup: () => Promise<void> };
let gateway: ServiceProcess;
let gatekeeper: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir();
  await writeFiles(join(temp.path, 'repo'), {
    'tools/run/TOOL.hdlp': tool('run', 'gatekeeper', 20_000, exec),
    'tools/run-briefly/TOOL.hdlp': tool('run-briefly', 'gatekeeper', 500, exec),
    'tools/script/TOOL.hdlp': tool('script', 'shell', 20_000, EVAL_SH),
    'tools/script-briefly/TOOL.hdlp': tool('script-briefly', 'shell', 500, EVAL_SH),
  });
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  gateway = await spawnService(['serve', '--port', '0', '--repo', join(temp.path, 'repo')], env, / at (http:\/\/[\d.:]+)\n/);
  gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', temp.path], { ...env, HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
});
afterAll(async () => {
  await gateway?.stop();
  await gatekeeper?.stop();
  await temp?.cleanup();
});

const daemonizers = {
  setsid: (sleep: string) => `setsid ${sleep} >/dev/null 2>&1 &`,
  'a double fork': (sleep: string) => `( ( ${sleep} >/dev/null 2>&1 & ) & );`,
};

async function callTool(tool: string, cmd: string): Promise<Record<string, unknown>> {
  const response = await request(gateway, 'POST', '/v1/call', { body: { tool, params: { cmd } } });
  expect(response.status).toBe(200);
  return response.json as Record<string, unknown>;
}

async function callGatekeeper(cmd: string, timeout: number): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatekeeper.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEKEEPER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'exec', params: { cmd }, timeout_ms: timeout }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

// each surface: a call that may take its time, and one whose deadline is short
const surfaces = {
  'the embedded gatekeeper (hldp serve)': [(cmd: string) => callTool('run', cmd), (cmd: string) => callTool('run-briefly', cmd)],
  'a shell tool (hldp serve)': [(cmd: string) => callTool('script', cmd), (cmd: string) => callTool('script-briefly', cmd)],
  'the standalone hldp gatekeeper': [(cmd: string) => callGatekeeper(cmd, 20_000), (cmd: string) => callGatekeeper(cmd, 500)],
} as const;

describe.each(Object.entries(surfaces))('a call on %s', (_surface, [call, callBriefly]) => {
  describe.each(Object.entries(daemonizers))('when its command leaves a daemon through %s', (_how, daemonize) => {
    it('returns a receipt after a normal exit, and the daemon is already gone', async () => {
      const sleep = uniqueSleep();
      const receipt = await call(`${daemonize(sleep.command)} sleep 0.3; echo done`);
      expect(receipt).toMatchObject({ ok: true, output: 'done\n' });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });

    it('returns a TIMEOUT receipt, and the daemon is already gone', async () => {
      const sleep = uniqueSleep();
      const receipt = await callBriefly(`${daemonize(sleep.command)} sleep 60`);
      expect(receipt).toMatchObject({ ok: false, code: 'TIMEOUT', timed_out: true });
      expect(processesMatching(sleep.marker)).toEqual([]);
    });
  });
});
