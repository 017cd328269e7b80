import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { freePort } from '../helpers/free-port.js';
import { makeTempDir } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const ANNOUNCE = / at (http:\/\/[\d.:]+)\n/;

let temp: { path: string; cleanup: () => Promise<void> };
let env: NodeJS.ProcessEnv;
const services: ServiceProcess[] = [];

async function serve(port: number): Promise<ServiceProcess> {
  const service = await spawnService(['serve', '--port', String(port)], env, ANNOUNCE);
  services.push(service);
  return service;
}

/**
 * Waits until the gateway's event hub has a subscriber (`hldp_event_subscribers` in /metrics): the tail's stream is
 * open and was sent its first id — or, where `tailMayEnd`, until the tail ended (it had its event).
 */
async function untilSubscribed(service: ServiceProcess, tail: () => CliRun | undefined, tailMayEnd = false): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const ended = tail();
    if (ended && !tailMayEnd) throw new Error(`hldp tail ended (exit ${ended.code}) before it subscribed at ${service.url}:\n${ended.stderr}`);
    // a tail that resumed has its event and is gone, perhaps before a look at /metrics saw it
    if (ended) return;
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    if (/^hldp_event_subscribers [1-9]/m.test(metrics)) return;
    if (Date.now() > until) throw new Error(`no subscriber at ${service.url} in 60 s:\n${metrics.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  temp = await makeTempDir('hldp-tail-restart-');
  const repo = await makeConsoleRepository(temp.path);
  env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  await Promise.allSettled(services.map((service) => service.stop()));
  await temp?.cleanup();
});

// review userZ8, H1: the stream's first block, `id: N` with no data, was never read (eventsource-parser hands on only
// blocks with data), so a tail that had seen no event resumed "after now" when its gateway restarted, and the events of
// the outage — a failure at the other instance — were lost without a `reset`
describe('hldp tail across a rolling restart of its gateway, before any event reached it', () => {
  it('prints the event made at the other instance while its gateway was down', async () => {
    // (receipts only: each start's scan is an event too, which would end a tail of --count 1)
    const port = await freePort();
    const a = await serve(port);
    const tail = runCli(['tail', '--url', a.url, '--types', 'receipt.stored', '--count', '1', '--json'], { timeoutMs: 170_000 });
    let ended: CliRun | undefined;
    void tail.then((result) => (ended = result));
    await untilSubscribed(a, () => ended);
    await a.stop();
    // instance B on the same store while A restarts: one call fails there
    const b = await serve(0);
    const missed = await request(b, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
    expect((missed.json as { id?: string }).id).toEqual(expect.any(String));
    await b.stop();
    const again = await serve(port);
    await untilSubscribed(again, () => ended, true);
    // a call after the tail is back: a tail that resumed "after now" prints this one instead
    if (!ended) await request(again, 'POST', '/v1/call', { body: { tool: 'fail', params: {} } });
    const result = await tail;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'receipt.stored', data: { receipt: (missed.json as { id: string }).id, tool: 'fail', ok: false } });
    expect(result.stderr).not.toContain('resuming after now');
  }, 180_000);
});
