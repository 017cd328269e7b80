import { createHmac } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const SECRET = 'webhook-secret-for-tests';
const GATEKEEPER_TOKEN = 'gatekeeper-token-0123456789abcdef';
// a tool that runs on the gatekeeper host: its params go to POST /exec as they are
const gatekeeperTool = (name: string) => makeToolYaml(name, { params_schema: '{ cmd: { type: string, required: true } }' });

let temp: { path: string; cleanup: () => Promise<void> };
let gitServer: GitHttpServer;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  while (services.length) await services.pop()!.stop();
  await gitServer?.close();
  await temp.cleanup();
});

describe('hldp serve over a smart-HTTP repository, with a standalone hldp gatekeeper process', () => {
  it('finds a tool pushed with git and announced by a signed webhook, and runs it on the gatekeeper', async () => {
    const served = join(temp.path, 'served');
    await initRepository(join(served, 'tools.git'), { bare: true });
    gitServer = await startGitHttpServer({ projectRoot: served });
    const work = await initRepository(join(temp.path, 'work'));
    await git(work, 'remote', 'add', 'origin', `${gitServer.url}/tools.git`);
    await commitFiles(work, { 'tools/first/TOOL.hdlp': gatekeeperTool('first') });
    await git(work, 'push', '-q', 'origin', 'main');

    const host = join(temp.path, 'host');
    await mkdir(host);
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
    const gatekeeper = await spawnService(['gatekeeper', '--port', '0', '--root', host], { ...env, HLDP_GATEKEEPER_TOKEN: GATEKEEPER_TOKEN }, /gatekeeper at (http:\/\/[\d.:]+)\/exec/);
    services.push(gatekeeper);
    const gateway = await spawnService(
      ['serve', '--port', '0', '--repo', `${gitServer.url}/tools.git`],
      { ...env, HLDP_GATEKEEPER_DEFAULT_URL: gatekeeper.url, HLDP_GATEKEEPER_DEFAULT_TOKEN: GATEKEEPER_TOKEN, HLDP_WEBHOOK_SECRET: SECRET, HLDP_POLL_INTERVAL_MS: '0' },
      / at (http:\/\/[\d.:]+)\n/,
    );
    services.push(gateway);
    const call = { tool: 'second', params: { cmd: 'echo pushed; pwd' } };
    expect((await request(gateway, 'POST', '/v1/call', { body: call })).status).toBe(404);

    const commit = await commitFiles(work, { 'tools/second/TOOL.hdlp': gatekeeperTool('second') });
    await git(work, 'push', '-q', 'origin', 'main');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: commit, repository: { full_name: 'agents/tools' } });
    const forged = await request(gateway, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-signature': createHmac('sha256', 'wrong-secret-000').update(body).digest('hex') } });
    expect(forged.status).toBe(401);
    const hook = await request(gateway, 'POST', '/v1/hooks/forgejo', { raw: body, headers: { 'content-type': 'application/json', 'x-forgejo-signature': createHmac('sha256', SECRET).update(body).digest('hex'), 'x-forgejo-event': 'push' } });
    expect(hook.status).toBe(202);

    let response = await request(gateway, 'POST', '/v1/call', { body: call });
    // the rescan runs in the background: up to 30 s on a loaded machine
    for (let attempt = 0; response.status === 404 && attempt < 600; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      response = await request(gateway, 'POST', '/v1/call', { body: call });
    }
    expect(response.json).toMatchObject({ ok: true, tool: 'second', executor: 'gatekeeper', output: `pushed\n${await realpath(host)}\n`, commit });
  });
});
