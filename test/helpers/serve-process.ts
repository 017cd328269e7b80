import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir } from './git.js';
import { spawnService, type ServiceProcess } from './spawn-service.js';

/** What `hldp serve` says on stderr once it listens; its group is the URL. */
export const SERVE_ANNOUNCE = / at (http:\/\/[\d.:]+)\n/;

/** A test's own folder for real `hldp` service processes, and the services started in it. */
export interface ServiceHome {
  /** the test's temporary folder: the workspace, with the cache and data below it */
  readonly path: string;
  /** HLDP_CACHE_DIR, HLDP_DATA_DIR and HLDP_WORKSPACE in the folder, and HLDP_LOG_LEVEL */
  readonly env: NodeJS.ProcessEnv;
  /** `hldp serve ARGS --port 0` with the home's environment (and `extraEnv`), once it says it listens */
  serve(args?: string[], extraEnv?: NodeJS.ProcessEnv): Promise<ServiceProcess>;
  /** `hldp ARGS` with the home's environment (and `extraEnv`), once its stderr matches `announce` */
  start(args: string[], extraEnv: NodeJS.ProcessEnv, announce: RegExp): Promise<ServiceProcess>;
}

/**
 * Gives each test of the file calling it a fresh folder and environment; after each test, stops every service
 * started through the home (SIGTERM, then its exit) and removes the folder.
 */
export function useServiceHome(logLevel: 'info' | 'warn'): ServiceHome {
  let temp: { path: string; cleanup: () => Promise<void> } | undefined;
  let env: NodeJS.ProcessEnv = {};
  const services: ServiceProcess[] = [];
  beforeEach(async () => {
    temp = await makeTempDir();
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: logLevel };
  });
  afterEach(async () => {
    // a service the test stopped itself has exited: stopping it again only reads its exit code
    while (services.length) await services.pop()!.stop();
    await temp?.cleanup();
  });
  const start = async (args: string[], extraEnv: NodeJS.ProcessEnv, announce: RegExp): Promise<ServiceProcess> => {
    const service = await spawnService(args, { ...env, ...extraEnv }, announce);
    services.push(service);
    return service;
  };
  return {
    get path(): string {
      if (temp === undefined) throw new Error('useServiceHome: the folder is made before each test; read it inside one');
      return temp.path;
    },
    get env(): NodeJS.ProcessEnv {
      return env;
    },
    serve: (args = [], extraEnv = {}) => start(['serve', ...args, '--port', '0'], extraEnv, SERVE_ANNOUNCE),
    start,
  };
}

/** The messages of a service's JSON log lines (its stderr), in order. */
export const loggedMessages = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);

/** The store's roll of live instances in the home's data folder: each row's instance and when it said it left (null: it never did). */
export function instanceRoll(home: ServiceHome): Array<{ instance: string; left_ms: number | null }> {
  const database = new Database(join(home.path, 'data', 'receipts.db'), { readonly: true });
  try {
    return database.prepare('SELECT instance, left_ms FROM gateway_instances').all() as Array<{ instance: string; left_ms: number | null }>;
  } finally {
    database.close();
  }
}
