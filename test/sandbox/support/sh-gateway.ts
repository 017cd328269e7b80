import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir, writeFiles } from '../../helpers/git.js';
import { spawnService, type ServiceProcess } from '../../helpers/spawn-service.js';
import { evalShTool } from './eval-tool.js';

/** A test's folder and the gateway serving its tools repository (`repo/`, the eval `sh` tool alone). */
export interface ShGateway {
  /** the test's own temporary folder */
  readonly folder: string;
  /** starts `hldp serve` of `repo/` on a free port, its cache and data in the folder, with `env` besides; stopped after the test */
  serve(env: Record<string, string>): Promise<ServiceProcess>;
}

/**
 * For each test of the suite that calls it: a new temporary folder (`prefix`) holding a tools repository with the
 * eval `sh` tool, made before the test, and the gateway it starts, stopped after the test, the folder removed.
 */
export function shGatewayEachTest(prefix?: string): ShGateway {
  let temp: { path: string; cleanup: () => Promise<void> } | undefined;
  let service: ServiceProcess | undefined;
  beforeEach(async () => {
    temp = await makeTempDir(prefix);
    await writeFiles(join(temp.path, 'repo'), { 'tools/sh/TOOL.hdlp': evalShTool() });
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await temp?.cleanup();
  });
  return {
    get folder(): string {
      return temp!.path;
    },
    async serve(env: Record<string, string>): Promise<ServiceProcess> {
      const folder = temp!.path;
      service = await spawnService(['serve', '--port', '0', '--repo', join(folder, 'repo')], { HLDP_CACHE_DIR: join(folder, 'cache'), HLDP_DATA_DIR: join(folder, 'data'), HLDP_LOG_LEVEL: 'warn', ...env }, / at (http:\/\/[\d.:]+)\n/);
      return service;
    },
  };
}
