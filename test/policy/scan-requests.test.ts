import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, git, initRepository, makeTempDir } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, echoTool, startGateway, TOKENS } from './support.js';

// POST /v1/scan is open to agents (one that pushes a tool rescans to call it), so it must be cheap: requests made while
// a rescan runs share the next one, instead of each queueing one more fetch from the repository's server.
let temp: { path: string; cleanup: () => Promise<void> };
let gitServer: GitHttpServer;
let gateway: { url: string; service: ServiceProcess };
let work: string;
// while closed, the git server holds every head check: the rescan running stays running
let gate: Promise<void> | undefined;
let headChecks = 0;

beforeAll(async () => {
  temp = await makeTempDir('hldp-scan-requests-');
  const projectRoot = join(temp.path, 'served');
  await initRepository(join(projectRoot, 'tools.git'), { bare: true });
  // a real smart-HTTP git server (git http-backend), as Forgejo serves a repository
  gitServer = await startGitHttpServer({
    projectRoot,
    beforeServing: async (method, path, request) => {
      // a fetch's head check (a push's own is git-receive-pack, never held)
      if (method === 'GET' && path.endsWith('/info/refs') && request.url?.includes('service=git-upload-pack')) {
        headChecks++;
        await gate;
      }
    },
  });
  work = await initRepository(join(temp.path, 'work'));
  await git(work, 'remote', 'add', 'origin', `${gitServer.url}/tools.git`);
  await commitFiles(work, { 'tools/first/TOOL.hdlp': echoTool('first') });
  await git(work, 'push', '-q', 'origin', 'main');
  gateway = await startGateway(`${gitServer.url}/tools.git`, temp.path);
});
afterAll(async () => {
  await gateway.service.stop();
  await gitServer.close();
  await temp.cleanup();
});

describe('POST /v1/scan by many callers at once (found in review E2)', () => {
  it('costs at most one rescan running and one shared by every request made meanwhile, and answers each with the pushed commit', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const before = headChecks;
    const first = api(gateway.url, 'POST', '/v1/scan', { who: 'bot' });
    await expect.poll(() => headChecks, { timeout: 15_000 }).toBe(before + 1);
    // a push while that rescan is held at the server: the requests made now must see it
    const pushed = await commitFiles(work, { 'tools/second/TOOL.hdlp': echoTool('second') });
    await git(work, 'push', '-q', 'origin', 'main');
    const rest = [
      ...Array.from({ length: 40 }, () => api(gateway.url, 'POST', '/v1/scan', { who: 'bot' })),
      api(gateway.url, 'POST', '/v1/scan', { who: 'admin' }),
    ];
    // every request has reached the gateway once a request sent after them is answered
    for (let round = 0; round < 3; round++) expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    gate = undefined;
    open();
    const answers = await Promise.all([first, ...rest]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(42).fill(200));
    for (const answer of answers.slice(1)) expect(answer.body.commit).toBe(pushed);
    expect(headChecks - before).toBeLessThanOrEqual(2);
    // the pushed tool is served: the agent that pushed it can call it
    expect((await api(gateway.url, 'POST', '/v1/call', { token: TOKENS.admin, body: { tool: 'second', params: { text: 'hi' } } })).body).toMatchObject({ ok: true, output: 'hi\n' });
  });
});
