import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMatching } from '../executors/support/processes.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, runCli, track } from '../helpers/run-cli.js';

// Review K, K12: `hldp call` interrupted by Ctrl-C or SIGTERM while its tool ran: the tool had run (its side effects
// happened) and was killed, but no receipt was stored and nothing was printed. Now the call is cancelled, its
// CANCELLED receipt stored and printed, and the CLI exits 130 or 143. A real `hldp call` over a real repository.

const SECONDS = '28.5';
let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
const env = () => ({ HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' });

beforeAll(async () => {
  temp = await makeTempDir();
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/sleeper/TOOL.hdlp': makeToolYaml('sleeper', { executor: 'shell', method: 'run', shell: `{ script: "echo did-work; sleep ${SECONDS}" }`, constraints: '{ timeout_ms: 40000 }' }),
  });
});
afterAll(async () => {
  await temp?.cleanup();
});

async function until(look: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!look()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('hldp call interrupted while its tool runs', () => {
  for (const [signal, exitCode] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`stores and prints the CANCELLED receipt on ${signal}, and exits ${exitCode}`, async () => {
      const child = track(spawn(process.execPath, [HLDP_BIN, 'call', 'sleeper', '--json', '--repo', repo], { env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] }));
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await until(() => processesMatching(`sleep ${SECONDS}`).length > 0, 'the tool to run');
      child.kill(signal);
      expect(await exited).toBe(exitCode);
      expect(JSON.parse(stdout)).toMatchObject({ ok: false, code: 'CANCELLED', tool: 'sleeper', output: 'did-work\n' });
      expect(processesMatching(`sleep ${SECONDS}`)).toEqual([]);
      const stored = await runCli(['receipts', '--tool', 'sleeper', '--json'], { env: env() });
      expect(stored.stdout).toContain('CANCELLED');
    });
  }
});
