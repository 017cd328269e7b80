import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { request } from './http-server.js';
import { spawnService, type ServiceProcess } from './spawn-service.js';

/** The receipt fields the sandbox tests read of a call's answer. */
export type ServedReceipt = { ok: boolean; code?: string; output: string; error?: string; exit_code: number | null };

/**
 * Real `hldp serve` processes over one test folder, each started with a config of its own: all read `<folder>/repo`
 * and work in `<folder>/workspace`; each has its own cache and data folders, and admits `token`.
 */
export interface ConfiguredGateways {
  /** every service started, and any a test adds (a gatekeeper): `stopAll` stops them */
  readonly services: ServiceProcess[];
  /** `hldp serve` with `config` written to `<folder>/config-NAME.yaml`, `env` added, once it listens */
  serve(name: string, config?: Record<string, unknown>, env?: Record<string, string>): Promise<ServiceProcess>;
  /** `POST /v1/call` as the token's principal: the receipt */
  call(gateway: ServiceProcess, tool: string, params?: Record<string, unknown>): Promise<ServedReceipt>;
  /** stops every service, one after the other */
  stopAll(): Promise<void>;
}

/** Gateways in the folder `folder()` names (asked at each start: a test makes it in `beforeAll`), admitting `token`. */
export function configuredGateways(folder: () => string, token: string): ConfiguredGateways {
  const services: ServiceProcess[] = [];
  return {
    services,
    async serve(name, config = {}, env = {}) {
      const file = join(folder(), `config-${name}.yaml`);
      await writeFile(file, stringify(config));
      const service = await spawnService(
        ['serve', '--port', '0', '--repo', join(folder(), 'repo'), '--config', file],
        { HLDP_CACHE_DIR: join(folder(), `cache-${name}`), HLDP_DATA_DIR: join(folder(), `data-${name}`), HLDP_WORKSPACE: join(folder(), 'workspace'), HLDP_API_TOKEN: token, HLDP_LOG_LEVEL: 'warn', ...env },
        / at (http:\/\/[\d.:]+)\n/,
      );
      services.push(service);
      return service;
    },
    async call(gateway, tool, params = {}) {
      return (await request(gateway, 'POST', '/v1/call', { body: { tool, params }, headers: { authorization: `Bearer ${token}` } })).json as ServedReceipt;
    },
    async stopAll() {
      for (const service of services) await service.stop();
    },
  };
}
