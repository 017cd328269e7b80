import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review Z8, Z8-9: POST /v1/scan is open to every principal, and requests made while a rescan runs share the next one;
// but a loop of them ran rescans back to back without end (4 loops: 305 scans of a 10,000-tool folder in 20 s). One
// principal now starts at most 10 rescans a minute; a request that joins a waiting rescan costs nothing
// (test/policy/scan-requests.test.ts: 41 at once are all answered). An admin is not counted: the operator's scripts (and
// `local`'s, on a gateway without credentials) commit a tool and rescan, as often as they commit.

const TOKENS = { operator: 'scan-rate-admin-token-0123456789', agent: 'scan-rate-agent-token-0123456789' } as const;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;
beforeAll(async () => {
  temp = await makeTempDir('hldp-scan-rate-');
  const repo = join(temp.path, 'repo');
  await writeFiles(repo, { 'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it', { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }' }) });
  const configFile = join(temp.path, 'config.yaml');
  await writeFile(configFile, `principals:\n  agent: { roles: [agent], token_sha256: ${digest(TOKENS.agent)} }\n`);
  server = await spawnService(
    ['serve', '--port', '0', '--config', configFile],
    { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: TOKENS.operator },
    / at (http:\/\/[\d.:]+)\n/,
  );
});
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

async function post(who: keyof typeof TOKENS, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

describe('POST /v1/scan in a loop', () => {
  it('serves an agent 10 rescans, then answers 429 TOO_MANY_SCANS with Retry-After; an admin is served on', async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    // one after another, each answered before the next: every one would start a rescan of its own. The bucket refills
    // (one every 6 s), so a slow machine may be served a few more before the first refusal
    for (let attempt = 0; attempt < 40 && !refused; attempt += 1) {
      const answer = await post('agent', '/v1/scan');
      statuses.push(answer.status);
      if (answer.status !== 200) refused = answer;
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect({ status: refused?.status, code: refused?.json.code }).toEqual({ status: 429, code: 'TOO_MANY_SCANS' });
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused!.json.error).toContain("principal 'agent'");
    // the operator rescans as often as it commits
    const byOperator: number[] = [];
    for (let attempt = 0; attempt < 15; attempt += 1) byOperator.push((await post('operator', '/v1/scan')).status);
    expect(byOperator).toEqual(Array(15).fill(200));
    // what is served is unchanged: a call still runs
    expect((await post('agent', '/v1/call', { tool: 'echo-it', params: {} })).json).toMatchObject({ ok: true });
  }, 180_000);
});
