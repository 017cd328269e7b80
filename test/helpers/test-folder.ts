import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir } from './git.js';
import { runCli, type CliRun } from './run-cli.js';
import { servedRepository, type ServedRepository, type ServeOptions } from './served-repository.js';

/** This test's temporary folder, and what the test started in it, stopped after the test. */
export interface TestFolder {
  /** the folder of the test running now */
  readonly path: string;
  /** `cache` in that folder: where a scan keeps its cache (`cacheDir` of `scanOnce` and `Scanner`, `HLDP_CACHE_DIR` of `cliEnv()`) */
  readonly cacheDir: string;
  /** Stops `running` after this test (the last one started first), before the folder is removed; returns it. */
  closeAfter<T extends { close(): Promise<unknown> }>(running: T): T;
  /** A repository served in this folder by `git http-backend` (see `servedRepository`), its server stopped after the test. */
  serve(options?: ServeOptions): Promise<ServedRepository>;
  /** A local HTTP server on 127.0.0.1 answering with `handler`, its connections and itself closed after the test; its origin. */
  listen(handler: RequestListener): Promise<string>;
  /** The environment of an `hldp` run whose cache, data and workspace are in this folder (logging warnings and worse). */
  cliEnv(): NodeJS.ProcessEnv;
  /** `hldp scan --repo <url> --json` as a user runs it, with `cliEnv()` and `env` over it. */
  scan(url: string, options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliRun>;
}

/**
 * A fresh temporary folder for each test of the file or `describe` this is called in (made before each test, removed
 * after it), with the servers its test started stopped first.
 */
export function testFolder(prefix?: string): TestFolder {
  let temp: { path: string; cleanup: () => Promise<void> } | undefined;
  const running: Array<{ close(): Promise<unknown> }> = [];
  beforeEach(async () => {
    temp = await makeTempDir(prefix);
  });
  afterEach(async () => {
    while (running.length > 0) await running.pop()!.close();
    await temp?.cleanup();
    temp = undefined;
  });
  const folder: TestFolder = {
    get path() {
      if (!temp) throw new Error('testFolder(): the folder is made before each test; use it inside one');
      return temp.path;
    },
    get cacheDir() {
      return join(folder.path, 'cache');
    },
    closeAfter(server) {
      running.push(server);
      return server;
    },
    async serve(options) {
      const served = await servedRepository(folder.path, options);
      folder.closeAfter(served.server);
      return served;
    },
    async listen(handler) {
      const server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      folder.closeAfter({
        close: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      });
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    cliEnv: () => ({ HLDP_CACHE_DIR: folder.cacheDir, HLDP_DATA_DIR: join(folder.path, 'data'), HLDP_WORKSPACE: folder.path, HLDP_LOG_LEVEL: 'warn' }),
    scan: (url, options = {}) => runCli(['scan', '--repo', url, '--json'], { env: { ...folder.cliEnv(), ...options.env }, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
  };
  return folder;
}
