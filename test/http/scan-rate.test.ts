import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review Z8, Z8-9: POST /v1/scan is open to every principal, and requests made while a rescan runs share the next one;
// but a loop of them ran rescans back to back without end (4 loops: 305 scans of a 10,000-tool folder in 20 s). A
// rescan that finds nothing new now takes one of its principal's 10 turns a minute; a request that joins a waiting
// rescan costs nothing (test/policy/scan-requests.test.ts: 41 at once are all answered).
// Review Z9, Z9-9: the bound left out admins, and on a gateway without credentials every client is `local`, an admin:
// there it bound nobody. Admins are held to it now too, and a rescan that finds a new commit takes no turn, so a script
// that commits and rescans is never refused, whoever runs it.

const TOKENS = { operator: 'scan-rate-admin-token-0123456789', agent: 'scan-rate-agent-token-0123456789', local: undefined } as const;
type Who = keyof typeof TOKENS;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const echoTool = (text: string) => makeToolYaml('echo-it', { executor: 'shell', method: 'run', shell: `{ argv: [echo, ${text}] }` });

let temp: { path: string; cleanup: () => Promise<void> };
let withCredentials: { server: ServiceProcess; repo: string };
let without: { server: ServiceProcess; repo: string };

async function gateway(name: string, credentials: boolean): Promise<{ server: ServiceProcess; repo: string }> {
  const repo = await initRepository(join(temp.path, name, 'repo'));
  await commitFiles(repo, { 'tools/echo-it/TOOL.hdlp': echoTool('ok') });
  const configFile = join(temp.path, name, 'config.yaml');
  await writeFile(configFile, credentials ? `principals:\n  agent: { roles: [agent], token_sha256: ${digest(TOKENS.agent)} }\n` : '{}\n');
  // no poll: a commit is found by the request that asks for it, not by a poll that ran first
  const env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, name, 'cache'), HLDP_DATA_DIR: join(temp.path, name, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0', ...(credentials ? { HLDP_API_TOKEN: TOKENS.operator } : {}) };
  const server = await spawnService(['serve', '--port', '0', '--config', configFile], env, / at (http:\/\/[\d.:]+)\n/);
  return { server, repo };
}

beforeAll(async () => {
  temp = await makeTempDir('hldp-scan-rate-');
  [withCredentials, without] = await Promise.all([gateway('with', true), gateway('without', false)]);
}, 120_000);
afterAll(async () => {
  await withCredentials?.server.stop();
  await without?.server.stop();
  await temp?.cleanup();
});

async function post(server: ServiceProcess, who: Who, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const token = TOKENS[who];
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

/** `times` commits, each followed by a rescan: the answers' status and whether each found its commit. */
async function commitAndRescan(gatewayUnderTest: { server: ServiceProcess; repo: string }, who: Who, times: number): Promise<Array<{ status: number; found: boolean }>> {
  const answers: Array<{ status: number; found: boolean }> = [];
  for (let commit = 0; commit < times; commit += 1) {
    const head = await commitFiles(gatewayUnderTest.repo, { 'tools/echo-it/TOOL.hdlp': echoTool(`${who}-${commit}`) });
    const answer = await post(gatewayUnderTest.server, who, '/v1/scan');
    answers.push({ status: answer.status, found: answer.json.commit === head && answer.json.changed === true });
  }
  return answers;
}

/** Rescans with nothing new, one after another, until one is refused (at most 40): the statuses and the refusal. */
async function rescanLoop(server: ServiceProcess, who: Who): Promise<{ statuses: number[]; refused: Awaited<ReturnType<typeof post>> | undefined }> {
  const statuses: number[] = [];
  let refused: Awaited<ReturnType<typeof post>> | undefined;
  // each answered before the next: every one would start a rescan of its own. The bucket refills (one every 6 s), so
  // a slow machine may be served a few more before the first refusal
  for (let attempt = 0; attempt < 40 && !refused; attempt += 1) {
    const answer = await post(server, who, '/v1/scan');
    statuses.push(answer.status);
    if (answer.status !== 200) refused = answer;
  }
  return { statuses, refused };
}

function expectRefusedAfterTen({ statuses, refused }: Awaited<ReturnType<typeof rescanLoop>>, principal: string): void {
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
  expect({ status: refused?.status, code: refused?.json.code }).toEqual({ status: 429, code: 'TOO_MANY_SCANS' });
  expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(refused!.json.error).toContain(`principal '${principal}'`);
}

describe('POST /v1/scan in a loop, on a gateway with credentials', () => {
  it('serves every rescan that finds a new commit; holds an agent, and an admin, to 10 a minute of rescans that find nothing', async () => {
    // an agent that pushes a tool and rescans to call it, more than 10 times: each finds its commit, none is refused
    expect(await commitAndRescan(withCredentials, 'agent', 12)).toEqual(Array(12).fill({ status: 200, found: true }));
    expectRefusedAfterTen(await rescanLoop(withCredentials.server, 'agent'), 'agent');
    // the operator commits and rescans as often as it commits, even while the agent is held
    expect(await commitAndRescan(withCredentials, 'operator', 3)).toEqual(Array(3).fill({ status: 200, found: true }));
    // but a loop of its own that finds nothing is held as well
    const byOperator = await rescanLoop(withCredentials.server, 'operator');
    expect({ status: byOperator.refused?.status, code: byOperator.refused?.json.code }).toEqual({ status: 429, code: 'TOO_MANY_SCANS' });
    expect(byOperator.statuses.length).toBeGreaterThanOrEqual(11);
    // what is served is the last commit: a call still runs it
    expect((await post(withCredentials.server, 'agent', '/v1/call', { tool: 'echo-it', params: {} })).json).toMatchObject({ ok: true, output: 'operator-2\n' });
  }, 240_000);
});

describe('POST /v1/scan in a loop, on a gateway without credentials (every client is local, an admin)', () => {
  it('serves every rescan that finds a new commit, and holds a loop that finds nothing to 10 a minute', async () => {
    expect(await commitAndRescan(without, 'local', 12)).toEqual(Array(12).fill({ status: 200, found: true }));
    expectRefusedAfterTen(await rescanLoop(without.server, 'local'), 'local');
  }, 240_000);
});
