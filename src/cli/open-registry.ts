import type { ToolIndex } from '../core/index.js';
import { Scanner } from '../scanner/index.js';
import { loadConfig, repositoryOptions, type GatewayConfig } from '../config/index.js';
import type { Flags } from './command.js';

/** The config a command runs with: file, environment, then its flags. */
export function configFromFlags(flags: Flags): GatewayConfig {
  return loadConfig({
    ...(typeof flags.config === 'string' ? { file: flags.config } : {}),
    overrides: {
      ...(typeof flags.repo === 'string' ? { repo: flags.repo } : {}),
      ...(typeof flags.ref === 'string' ? { ref: flags.ref } : {}),
      ...(typeof flags.token === 'string' ? { token: flags.token } : {}),
      ...(typeof flags.port === 'string' ? { port: Number(flags.port) } : {}),
      ...(typeof flags.host === 'string' ? { host: flags.host } : {}),
    },
  });
}

/** Scans the repository the flags name once, and waits for the cache write. */
export async function scanFromFlags(flags: Flags): Promise<ToolIndex> {
  const scanner = new Scanner(repositoryOptions(configFromFlags(flags)));
  const index = await scanner.scan();
  await scanner.flush();
  return index;
}
