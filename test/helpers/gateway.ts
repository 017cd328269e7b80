import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { makeTempDir } from './git.js';

/** A config over `repo` whose cache, receipts and workspace live in a new temporary folder. */
export async function makeTestConfig(repo: string, env: NodeJS.ProcessEnv = {}): Promise<{ config: GatewayConfig; workspace: string; cleanup: () => Promise<void> }> {
  const temp = await makeTempDir('hldp-gateway-');
  const workspace = join(temp.path, 'workspace');
  await mkdir(workspace, { recursive: true });
  const config = loadConfig({
    env: { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace, ...env },
  });
  return { config, workspace, cleanup: temp.cleanup };
}

/** A gateway over `repo` with its cache, receipts and workspace in a temporary folder. */
export async function openTestGateway(repo: string, env: NodeJS.ProcessEnv = {}): Promise<{ gateway: Gateway; config: GatewayConfig; workspace: string; cleanup: () => Promise<void> }> {
  const { config, workspace, cleanup } = await makeTestConfig(repo, env);
  const gateway = await Gateway.open({ config });
  return {
    gateway,
    config,
    workspace,
    cleanup: async () => {
      await gateway.close();
      await cleanup();
    },
  };
}
