import { join } from 'node:path';
import { loadConfig, type GatewayConfig } from '../../src/gateway/config/index.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { makeTempDir } from './git.js';

/** A gateway over `repo` with its cache, receipts and workspace in a temporary folder. */
export async function openTestGateway(repo: string, env: NodeJS.ProcessEnv = {}): Promise<{ gateway: Gateway; config: GatewayConfig; workspace: string; cleanup: () => Promise<void> }> {
  const temp = await makeTempDir('hldp-gateway-');
  const workspace = join(temp.path, 'workspace');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(workspace, { recursive: true });
  const config = loadConfig({
    env: {
      HLDP_REPO: repo,
      HLDP_CACHE_DIR: join(temp.path, 'cache'),
      HLDP_DATA_DIR: join(temp.path, 'data'),
      HLDP_WORKSPACE: workspace,
      ...env,
    },
  });
  const gateway = await Gateway.open({ config });
  return {
    gateway,
    config,
    workspace,
    cleanup: async () => {
      await gateway.close();
      await temp.cleanup();
    },
  };
}
