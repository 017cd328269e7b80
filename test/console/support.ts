import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/git.js';
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
