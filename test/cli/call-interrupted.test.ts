import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMatching, processesRunning } from '../executors/support/processes.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, runCli, track } from '../helpers/run-cli.js';

// Review K, K12: `hldp call` interrupted by Ctrl-C or SIGTERM while its tool ran: the tool had run (its side effects
// happened) and was killed, but no receipt was stored and nothing was printed. Now the call is cancelled, its
// CANCELLED receipt stored and printed, and the CLI exits 130 or 143. A real `hldp call` (`hldp confirm`,
// `hldp approvals approve`) over a real repository.

const SECONDS = '28.5';
const CONFIRMED_SECONDS = '28.6';
const APPROVED_SECONDS = '28.7';
let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
const env = () => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  temp = await makeTempDir();
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/sleeper/TOOL.hdlp': makeToolYaml('sleeper', { executor: 'shell', method: 'run', shell: `{ script: "echo did-work; sleep ${SECONDS}" }`, constraints: '{ timeout_ms: 40000 }' }),
    'tools/confirmed-sleeper/TOOL.hdlp': makeToolYaml('confirmed-sleeper', { executor: 'shell', method: 'run', shell: `{ script: "echo did-work; sleep ${CONFIRMED_SECONDS}" }`, constraints: '{ timeout_ms: 40000, require_confirm: true }' }),
    'tools/approved-sleeper/TOOL.hdlp': makeToolYaml('approved-sleeper', { executor: 'shell', method: 'run', shell: `{ script: "echo did-work; sleep ${APPROVED_SECONDS}" }`, constraints: '{ timeout_ms: 40000 }' }),
    'policies/sleepers.hdlp': ['name: sleepers', 'author: TEST-001', 'why: a person approves the sleeper', 'approval:', '  - tools: [approved-sleeper]', '    decision: approve', '    self_approval: true', '    reason: a person approves it'].join('\n'),
  });
});
afterAll(async () => {
  await temp?.cleanup();
});

// a cold `hldp` process took over 25 s to start at load 17-20 on CI's 2 cores: each test's own bound (its cold CLI
// processes, in turn) is that of a test that starts several, and a wait gives up only when the process it waits on is gone
const COLD_CLI_TEST_MS = 120_000;

/**
 * Waits until `look` holds while `child` runs; a child that exits first fails at once with what it printed. The tool's
 * script is `echo did-work; sleep SECONDS`: its shell's own command line holds `sleep SECONDS` before the echo ran, so
 * the tool counts as running once the sleep itself does (a process whose whole command line is `sleep SECONDS`).
 */
async function untilRunning(child: ChildProcess, output: () => string, look: () => boolean, what: string): Promise<void> {
  while (!look()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`hldp exited ${child.exitCode ?? child.signalCode} before ${what}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `hldp ARGS --json`, sends `signal` once `sleep SECONDS` runs; its exit code and what it printed. */
async function interrupted(args: string[], seconds: string, signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string }> {
  const child = track(spawn(process.execPath, [HLDP_BIN, ...args, '--json', '--repo', repo], { env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await untilRunning(child, () => `${stdout}${stderr}`, () => processesRunning(`sleep ${seconds}`).length > 0, 'the tool ran its sleep');
  child.kill(signal);
  const code = await exited;
  expect(processesMatching(`sleep ${seconds}`)).toEqual([]);
  return { code, stdout };
}

async function storedCodes(tool: string): Promise<string[]> {
  const stored = await runCli(['receipts', '--tool', tool, '--json'], { env: env() });
  return (JSON.parse(stored.stdout) as { receipts: Array<{ code: string | null }> }).receipts.map((receipt) => String(receipt.code));
}

const SIGNALS = [['SIGINT', 130], ['SIGTERM', 143]] as const;

describe('hldp call interrupted while its tool runs', () => {
  for (const [signal, exitCode] of SIGNALS) {
    it(`stores and prints the CANCELLED receipt on ${signal}, and exits ${exitCode}`, async () => {
      const run = await interrupted(['call', 'sleeper'], SECONDS, signal);
      expect(run.code).toBe(exitCode);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'CANCELLED', tool: 'sleeper', output: 'did-work\n' });
      expect(await storedCodes('sleeper')).toContain('CANCELLED');
    }, COLD_CLI_TEST_MS);
  }
});

// The same for the two other commands that run a call: before, they died at the signal, the tool killed with them,
// and no receipt was stored or printed.
describe('hldp confirm interrupted while the call it confirmed runs', () => {
  for (const [signal, exitCode] of SIGNALS) {
    it(`stores and prints the CANCELLED receipt on ${signal}, and exits ${exitCode}`, async () => {
      const pending = await runCli(['call', 'confirmed-sleeper', '--json', '--repo', repo], { env: env() });
      expect(pending.code).toBe(3);
      const { token } = JSON.parse(pending.stdout) as { token: string };
      const before = await storedCodes('confirmed-sleeper');
      const run = await interrupted(['confirm', token], CONFIRMED_SECONDS, signal);
      expect(run.code).toBe(exitCode);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'CANCELLED', tool: 'confirmed-sleeper', output: 'did-work\n' });
      expect(await storedCodes('confirmed-sleeper')).toEqual(['CANCELLED', ...before]);
    }, COLD_CLI_TEST_MS);
  }
});

describe('hldp approvals approve interrupted while the call it approved runs', () => {
  for (const [signal, exitCode] of SIGNALS) {
    it(`stores and prints the CANCELLED receipt on ${signal}, and exits ${exitCode}`, async () => {
      const pending = await runCli(['call', 'approved-sleeper', '--json', '--repo', repo], { env: env() });
      const { id } = JSON.parse(pending.stdout) as { id: string };
      expect(id).toMatch(/^apr_/);
      const before = await storedCodes('approved-sleeper');
      const run = await interrupted(['approvals', 'approve', id], APPROVED_SECONDS, signal);
      expect(run.code).toBe(exitCode);
      expect(JSON.parse(run.stdout)).toMatchObject({ approval: { id, status: 'approved' }, receipt: { ok: false, code: 'CANCELLED', tool: 'approved-sleeper', output: 'did-work\n' } });
      expect(await storedCodes('approved-sleeper')).toEqual(['CANCELLED', ...before]);
    }, COLD_CLI_TEST_MS);
  }
});
