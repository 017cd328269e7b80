import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMatching } from '../executors/support/processes.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { HLDP_BIN, runCli, track } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review userU, F6: a gatekeeper call cancelled by its caller (an HTTP client that hangs up, `hldp call` and Ctrl-C,
// an MCP cancel) stored a receipt with `output: ""`, `stderr: ""`, `output_bytes: 0`, though the command had printed
// before the cancel: the gateway dropped its request to the gatekeeper, and the gatekeeper, which answers only at the
// run's end, took the closed connection for its own cancel. Now the gateway asks it to stop the run (POST /cancel) and
// reads its CANCELLED answer. Real `hldp serve` (its embedded gatekeeper, and a standalone `hldp gatekeeper`), real
// `hldp call`, a real repository; each command prints, leaves a marker, then sleeps; the cancel comes after the marker.

const GATEKEEPER_TOKEN = 'gatekeeper-token-cancel-keeps-output-0123';
let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let embedded: ServiceProcess;
let standalone: ServiceProcess;
let remote: ServiceProcess;
const env = (workspace: string) => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, `data-${workspace}`), HLDP_WORKSPACE: join(temp.path, workspace), HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  temp = await makeTempDir();
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/printer/TOOL.hdlp': makeToolYaml('printer', { params_schema: '{ cmd: { type: string, required: true } }', constraints: '{ timeout_ms: 40000 }' }) });
  for (const folder of ['embedded', 'remote', 'host', 'cli']) await mkdir(join(temp.path, folder));
  embedded = await spawnService(['serve', '--port', '0', '--repo', repo], env('embedded'), / at (http:\/\/[\d.:]+)\n/);
  standalone = await spawnService(['gatekeeper', '--port', '0', '--root', join(temp.path, 'host')], { ...env('host'), HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
  remote = await spawnService(
    ['serve', '--port', '0', '--repo', repo],
    { ...env('remote'), HLDP_GATEKEEPER_DEFAULT_URL: standalone.url, HLDP_GATEKEEPER_DEFAULT_TOKEN: GATEKEEPER_TOKEN },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  for (const service of [remote, standalone, embedded]) await service?.stop();
  await temp?.cleanup();
});

/** Looks until `look` finds something, for 20 s; or, given a `child`, for as long as it runs (a cold `hldp` process took over 25 s to start at load 17-20 on CI's 2 cores). */
async function until<T>(look: () => T | undefined | Promise<T | undefined>, what: string, child?: { process: ChildProcess; output: () => string }): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (child && (child.process.exitCode !== null || child.process.signalCode !== null)) throw new Error(`hldp exited ${child.process.exitCode ?? child.process.signalCode} before ${what}:\n${child.output()}`);
    if (!child && Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A command that prints to stdout and stderr, leaves `marker` in the root, then sleeps `seconds` (its mark in ps). */
const printing = (label: string, seconds: string) => `echo printed-${label}; echo to-stderr-${label} >&2; touch marker-${label}; sleep ${seconds}`;

/** What a cancelled call's receipt must say: what was printed, CANCELLED, the process group killed. */
function expectKeptOutput(receipt: Record<string, unknown>, label: string): void {
  expect(receipt).toMatchObject({ ok: false, code: 'CANCELLED', tool: 'printer', output: `printed-${label}\n`, stderr: `to-stderr-${label}\n` });
  expect(receipt.output_bytes).toBe(`printed-${label}\n`.length + `to-stderr-${label}\n`.length);
  expect(receipt.error).toMatch(/^cancelled by the caller; the process group was killed/);
}

async function hangUpAfterMarker(gateway: ServiceProcess, root: string, label: string, seconds: string): Promise<Record<string, unknown>> {
  const hangUp = new AbortController();
  const asked = fetch(`${gateway.url}/v1/call`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'printer', params: { cmd: printing(label, seconds) } }), signal: hangUp.signal,
  }).catch((error: Error) => error);
  await until(() => (existsSync(join(root, `marker-${label}`)) ? true : undefined), 'the command to print and leave its marker');
  hangUp.abort();
  expect(await asked).toBeInstanceOf(Error);
  return until(async () => {
    const page = await request(gateway, 'GET', '/v1/receipts?tool=printer');
    return (page.json.receipts as Array<Record<string, unknown>>).find((receipt) => receipt.code === 'CANCELLED');
  }, 'the receipt');
}

describe('a gatekeeper call whose HTTP client hangs up', () => {
  it('stores what the command printed, on the embedded gatekeeper, and its process is gone', async () => {
    const receipt = await hangUpAfterMarker(embedded, join(temp.path, 'embedded'), 'embedded', '27.311');
    expectKeptOutput(receipt, 'embedded');
    await until(() => (processesMatching('sleep 27.311').length === 0 ? true : undefined), 'the process to be gone');
  });

  it('stores what the command printed, on a standalone hldp gatekeeper, and its process is gone', async () => {
    const receipt = await hangUpAfterMarker(remote, join(temp.path, 'host'), 'standalone', '27.312');
    expectKeptOutput(receipt, 'standalone');
    await until(() => (processesMatching('sleep 27.312').length === 0 ? true : undefined), 'the process to be gone');
  });
});

describe('hldp call of a gatekeeper tool interrupted by Ctrl-C', () => {
  it('prints and stores what the command printed, exits 130, and its process is gone', async () => {
    const child = track(spawn(process.execPath, [HLDP_BIN, 'call', 'printer', '--params', JSON.stringify({ cmd: printing('cli', '27.313') }), '--json', '--repo', repo], {
      env: { ...process.env, ...env('cli') }, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => (existsSync(join(temp.path, 'cli', 'marker-cli')) ? true : undefined), 'the command to print and leave its marker', { process: child, output: () => stdout + stderr });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expectKeptOutput(JSON.parse(stdout) as Record<string, unknown>, 'cli');
    expect(processesMatching('sleep 27.313')).toEqual([]);
    const stored = await runCli(['receipts', '--tool', 'printer', '--json'], { env: env('cli') });
    expectKeptOutput((JSON.parse(stored.stdout) as { receipts: Array<Record<string, unknown>> }).receipts[0]!, 'cli');
  }, 120_000);
});
