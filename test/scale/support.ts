import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { closeIdleConnectionsUnread } from '../../src/http-edge/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { createTestDatabase } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

/** The webhook secret the instances share. */
export const WEBHOOK_SECRET = 'scale-webhook-secret';

/** Tools of the scenarios: an HTTP echo (no process spawned per call) and a confirmed shell tool that leaves a trace of each run. */
export const TOOLS = {
  'tools/echo/TOOL.hdlp': makeToolYaml('echo', {
    executor: 'hldp-api', method: 'get', params_schema: '{ word: { type: string, required: true } }', http: '{ method: GET, path: "/echo/{word}" }',
  }),
  'tools/once/TOOL.hdlp': makeToolYaml('once', {
    executor: 'shell', method: 'run', params_schema: '{ mark: { type: string, required: true, pattern: "^[a-z0-9]+$" } }',
    shell: '{ script: "echo ran >> \\"runs-$HLDP_PARAM_MARK.log\\"" }', constraints: '{ require_confirm: true }',
  }),
};

/** A folder, a git repository of the tools, and an HTTP server the echo tool calls. */
export interface ScaleWorld {
  folder: string;
  repo: string;
  workspace: string;
  echoUrl: string;
  cleanup(): Promise<void>;
}

export async function makeWorld(): Promise<ScaleWorld> {
  const temp = await makeTempDir('hldp-scale-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, TOOLS);
  const workspace = join(temp.path, 'workspace');
  await import('node:fs/promises').then(({ mkdir }) => mkdir(workspace));
  const echo: Server = createServer((request, response) => {
    response.setHeader('content-type', 'text/plain');
    response.end(decodeURIComponent((request.url ?? '').replace(/^\/echo\//, '')));
  });
  // this process runs the load's 64 clients too: held up, Node's own keep-alive timeout reset the gateways' requests to it
  closeIdleConnectionsUnread(echo);
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echo.unref();
  return {
    folder: temp.path,
    repo,
    workspace,
    echoUrl: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
    async cleanup() {
      echo.closeAllConnections();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
      await temp.cleanup();
    },
  };
}

let started = 0;

/** A real `hldp serve` process on the shared store; its cache and data folders are its own. */
export async function startInstance(world: ScaleWorld, storeUrl: string, options: { config?: string } = {}): Promise<ServiceProcess> {
  const own = join(world.folder, `instance-${++started}`);
  const args = ['serve', '--port', '0'];
  if (options.config !== undefined) {
    const file = `${own}.yaml`;
    await writeFile(file, options.config);
    args.push('--config', file);
  }
  return spawnService(
    args,
    {
      HLDP_REPO: world.repo, HLDP_STORE_URL: storeUrl, HLDP_WORKSPACE: world.workspace, HLDP_API_DEFAULT_URL: world.echoUrl,
      HLDP_CACHE_DIR: join(own, 'cache'), HLDP_DATA_DIR: join(own, 'data'), HLDP_WEBHOOK_SECRET: WEBHOOK_SECRET,
      // no repository poll: a push reaches an instance through the webhook or the other instances only
      HLDP_POLL_INTERVAL_MS: '0', HLDP_LOG_LEVEL: 'warn',
    },
    / at (http:\/\/[\d.:]+)\n/,
  );
}

/** Two real instances on one throwaway PostgreSQL database, and a client of it; the fields are set before the suite's first test. */
export interface TwoInstances {
  world: ScaleWorld;
  database: { url: string; drop: () => Promise<void> };
  sql: postgres.Sql;
  a: ServiceProcess;
  b: ServiceProcess;
  /** more instances a test starts: stopped with the two */
  extra: ServiceProcess[];
}

/**
 * Starts two instances on one new database before the suite (together: both run the migrations at once) and stops
 * them, the database and the world after it. `prepare` runs on the world before they start; `sql` options the client's.
 */
export function useTwoInstances(options: { sql?: postgres.Options<Record<string, postgres.PostgresType>>; prepare?: (world: ScaleWorld) => Promise<unknown> } = {}): TwoInstances {
  const pair = { extra: [] as ServiceProcess[] } as TwoInstances;
  beforeAll(async () => {
    pair.world = await makeWorld();
    await options.prepare?.(pair.world);
    pair.database = await createTestDatabase();
    pair.sql = postgres(pair.database.url, { max: 2, onnotice: () => undefined, ...options.sql });
    [pair.a, pair.b] = await Promise.all([startInstance(pair.world, pair.database.url), startInstance(pair.world, pair.database.url)]);
  });
  afterAll(async () => {
    // an instance a test stopped (SIGSTOP) cannot stop until it runs again
    pair.a?.child.kill('SIGCONT');
    await Promise.allSettled([pair.a, pair.b, ...pair.extra].filter(Boolean).map((instance) => instance.stop()));
    await pair.sql?.end();
    await pair.database?.drop();
    await pair.world?.cleanup();
  });
  return pair;
}

/** POSTs a signed Forgejo push webhook. */
export async function sendWebhook(url: string): Promise<Response> {
  const body = JSON.stringify({ ref: 'refs/heads/main' });
  const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
  return fetch(`${url}/v1/hooks/forgejo`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forgejo-event': 'push', 'x-forgejo-signature': signature }, body });
}

/** JSON POST; resolves to status and parsed body. */
export async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

/** JSON GET. */
export async function get(url: string, path: string): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, json: await response.json() };
}

/** Runs `count` operations from `clients` concurrent loops; operation i gets its index. */
export async function load<T>(count: number, clients: number, operation: (index: number, client: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (next < count) {
        const index = next++;
        results[index] = await operation(index, client);
      }
    }),
  );
  return results;
}
