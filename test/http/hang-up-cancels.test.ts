import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMatching } from '../executors/support/processes.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review K, K7: a caller of POST /v1/call (or /v1/confirm, or a session's call) that hung up left its run going to
// its end — 40 fire-and-forget calls of a 20 s tool held 40 sandboxes. A hang-up now cancels the run: its process
// group is killed and a CANCELLED receipt is stored. A real `hldp serve` over a real repository, real HTTP.

const API_TOKEN = 'api-token-hang-up-cancels-0123456789';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const SECONDS = '29.5';

let temp: { path: string; cleanup: () => Promise<void> };
let gateway: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir();
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/sleeper/TOOL.hdlp': makeToolYaml('sleeper', { executor: 'shell', method: 'run', shell: `{ argv: [sleep, "${SECONDS}"] }`, constraints: '{ timeout_ms: 40000, require_confirm: false }' }),
    'tools/quick/TOOL.hdlp': makeToolYaml('quick', { executor: 'shell', method: 'run', shell: '{ argv: [echo, quick] }' }),
  });
  gateway = await spawnService(
    ['serve', '--port', '0', '--repo', repo],
    { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: API_TOKEN, HLDP_MAX_CALLS_IN_FLIGHT_PER_CALLER: '2' },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  await gateway?.stop();
  await temp?.cleanup();
});

async function until<T>(look: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function startSleeper(hangUp: AbortController): Promise<unknown> {
  return fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'sleeper', params: {} }), signal: hangUp.signal }).catch(
    (error: Error) => error,
  );
}

describe('a caller that hangs up on POST /v1/call', () => {
  it('cancels the run: the process is killed and a CANCELLED receipt is stored', async () => {
    const hangUp = new AbortController();
    const asked = fetch(`${gateway.url}/v1/call`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'sleeper', params: {} }), signal: hangUp.signal }).catch(
      (error: Error) => error,
    );
    await until(async () => (processesMatching(`sleep ${SECONDS}`).length > 0 ? true : undefined), 'the tool to start');
    hangUp.abort();
    expect(await asked).toBeInstanceOf(Error);
    const receipt = await until(async () => {
      const page = await request(gateway, 'GET', '/v1/receipts?tool=sleeper', { headers: auth });
      return (page.json.receipts as Array<Record<string, unknown>>)[0];
    }, 'the receipt');
    expect(receipt).toMatchObject({ ok: false, code: 'CANCELLED', tool: 'sleeper' });
    expect(receipt.duration_ms as number).toBeLessThan(20_000);
    expect(processesMatching(`sleep ${SECONDS}`)).toEqual([]);
  });

  it('may have max_calls_in_flight_per_caller calls running at once: one more is refused with 429 TOO_MANY_CALLS, nothing run', async () => {
    const hangUps = [new AbortController(), new AbortController()];
    const asked = hangUps.map(startSleeper);
    await until(async () => (processesMatching(`sleep ${SECONDS}`).length === 2 ? true : undefined), 'both calls to run');
    const third = await request(gateway, 'POST', '/v1/call', { body: { tool: 'quick', params: {} }, headers: auth });
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ code: 'TOO_MANY_CALLS', tool: 'quick', in_flight: 2, most: 2 });
    for (const hangUp of hangUps) hangUp.abort();
    await Promise.all(asked);
    await until(async () => (processesMatching(`sleep ${SECONDS}`).length === 0 ? true : undefined), 'the runs to be cancelled');
    const after = await until(async () => {
      const answer = await request(gateway, 'POST', '/v1/call', { body: { tool: 'quick', params: {} }, headers: auth });
      return answer.status === 200 ? answer : undefined;
    }, 'a call to be let in again');
    expect(after.json).toMatchObject({ ok: true, output: 'quick\n' });
  });
});
