import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { execute, RUN_ID_HEADER } from '../../src/executors/index.js';
import { createGatekeeperApp, startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';
import { processesMatching } from '../executors/support/processes.js';
import { loadStarterTool } from '../executors/support/tool-definitions.js';

// Review userU, F6: the gatekeeper's POST /cancel, which stops a named run and lets its POST /exec answer with what
// the command printed; and a gatekeeper without it (an older one, or one that never answers the cancel), with which
// a cancelled call ends as before: CANCELLED, its process gone. Real gatekeepers on 127.0.0.1, real commands.

const TOKEN = 'gatekeeper-token-cancel-route-0123456789';
let root: string;
let gatekeeper: RunningGatekeeper;
const servers: Server[] = [];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-cancel-route-')));
  gatekeeper = await startGatekeeper({ root, token: TOKEN });
});
afterAll(async () => {
  await gatekeeper.close();
  for (const server of servers) server.closeAllConnections(), server.close();
  await rm(root, { recursive: true, force: true });
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** This gatekeeper's app behind a route that answers `/cancel` as `cancel` does: an older gatekeeper, or a stuck one. */
async function gatekeeperWhoseCancel(cancel: express.RequestHandler): Promise<string> {
  const app = express();
  app.post('/cancel', cancel);
  app.use(createGatekeeperApp({ root, token: TOKEN }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('POST /cancel', () => {
  it('stops the run its POST /exec named: the answer is CANCELLED with what the command printed, its process gone', async () => {
    const runId = 'run-id-of-the-test-0001';
    const answer = post(`${gatekeeper.url}/exec`, { method: 'exec', params: { cmd: 'echo before; echo err >&2; touch marker-route; sleep 26.411' } }, { [RUN_ID_HEADER]: runId });
    await vi.waitFor(() => expect(existsSync(join(root, 'marker-route'))).toBe(true), { timeout: 10_000 });
    const cancelled = await post(`${gatekeeper.url}/cancel`, { run_id: runId });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ cancelled: true, run_id: runId });
    const result = (await (await answer).json()) as Record<string, unknown>;
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED', output: 'before\n', stderr: 'err\n' });
    expect(result.error).toMatch(/^cancelled by the caller; the process group was killed/);
    expect(processesMatching('sleep 26.411')).toEqual([]);
    // the run is forgotten once it ended
    expect((await post(`${gatekeeper.url}/cancel`, { run_id: runId })).status).toBe(404);
  });

  it('is refused without the token (401), for a run not in flight (404 UNKNOWN_RUN), and without a run_id (400)', async () => {
    const unauthorised = await fetch(`${gatekeeper.url}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"run_id":"abcdefghijklmnop"}' });
    expect(unauthorised.status).toBe(401);
    const unknown = await post(`${gatekeeper.url}/cancel`, { run_id: 'abcdefghijklmnop' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'UNKNOWN_RUN' });
    const malformed = await post(`${gatekeeper.url}/cancel`, { id: 'abcdefghijklmnop' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('a cancelled call to a gatekeeper that does not stop the run on POST /cancel', () => {
  const cases: Array<[string, express.RequestHandler, string]> = [
    ['an older gatekeeper, without the route', (_request, response) => void response.status(404).json({ code: 'NOT_FOUND', error: 'no route POST /cancel' }), '26.421'],
    ['a gatekeeper that never answers the cancel', () => undefined, '26.422'],
  ];
  for (const [which, cancel, seconds] of cases) {
    it(`ends CANCELLED as before, its process gone: ${which}`, async () => {
      const url = await gatekeeperWhoseCancel(cancel);
      const controller = new AbortController();
      const running = execute(loadStarterTool('shell-exec'), { cmd: `sleep ${seconds}` }, { gatekeepers: { default: { url, token: TOKEN } }, signal: controller.signal });
      await vi.waitFor(() => expect(processesMatching(`sleep ${seconds}`)).not.toEqual([]), { timeout: 10_000 });
      controller.abort();
      expect(await running).toMatchObject({ ok: false, code: 'CANCELLED', error: "gatekeeper 'default': cancelled by the caller" });
      await vi.waitFor(() => expect(processesMatching(`sleep ${seconds}`)).toEqual([]), { timeout: 10_000 });
    });
  }
});
