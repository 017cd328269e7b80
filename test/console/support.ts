import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Gateway } from '../../src/gateway/service/index.js';
import type { Store } from '../../src/store/index.js';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { makeTempDir } from '../helpers/git.js';
import { startTestServer } from '../helpers/http-server.js';
import { SERVE_ANNOUNCE } from '../helpers/serve-process.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

/** A token as a config's `token_sha256` holds it, computed here rather than by the code under test. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A console test's real `hldp serve`, its folder, and the one call that ends both. */
export interface ConsoleGateway {
  url: string;
  service: ServiceProcess;
  /** the temporary folder: the repository's parent, the config, the cache, the data (receipts.db) and the workspace */
  folder: string;
  /** stops the gateway, then removes its folder */
  stop(): Promise<void>;
}

/**
 * `hldp serve` (log level warn) over the repository `repository` makes in a new folder, with `config` as its config
 * file (the principals, their tokens by digest) and `apiToken` as the admin's api_token; the folder is removed if it
 * does not start.
 */
export async function startConsoleGateway(options: { repository: (folder: string) => Promise<string>; config: string; apiToken: string }): Promise<ConsoleGateway> {
  const temp = await makeTempDir('hldp-console-');
  try {
    const repo = await options.repository(temp.path);
    const configFile = join(temp.path, 'config.yaml');
    await writeFile(configFile, options.config);
    const service = await spawnService(
      ['serve', '--port', '0', '--config', configFile],
      { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_API_TOKEN: options.apiToken },
      SERVE_ANNOUNCE,
    );
    const stop = async (): Promise<void> => {
      await service.stop();
      await temp.cleanup();
    };
    return { url: service.url, service, folder: temp.path, stop };
  } catch (error) {
    await temp.cleanup();
    throw error;
  }
}

/** The in-process gateway app over the console repository, its console signed in to by the admin (api_token): for views of what its store holds. */
export interface AdminConsole {
  /** the gateway's store, to save the receipts a view is to show */
  store: Store;
  /** the gateway itself, to make a call whose receipt a view is to show */
  gateway: Gateway;
  /** the text of a console page, as the admin gets it */
  page(path: string): Promise<string>;
  /** the rows of the Calls list for a query string (`q=needle&until=…`), answered 200 */
  rows(query: string): Promise<string>;
  /** closes the app, then removes its folder */
  stop(): Promise<void>;
}

/** startTestServer over makeConsoleRepository in a new folder, with an api_token, signed in to as its admin. */
export async function startAdminConsole(): Promise<AdminConsole> {
  const token = 'console-admin-token-0123456789';
  const temp = await makeTempDir('hldp-console-admin-');
  let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
  const stop = async (): Promise<void> => {
    await server?.cleanup();
    await temp.cleanup();
  };
  try {
    server = await startTestServer(await makeConsoleRepository(temp.path), { HLDP_API_TOKEN: token });
    const { url } = server;
    const cookie = await signInToConsole(url, token);
    const page = async (path: string): Promise<string> => (await fetch(`${url}${path}`, { headers: { cookie } })).text();
    const rows = async (query: string): Promise<string> => {
      const response = await fetch(`${url}/console/failures/rows?${query}`, { headers: { cookie } });
      expect(response.status).toBe(200);
      return response.text();
    };
    return { store: server.gateway.store, gateway: server.gateway, page, rows, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
