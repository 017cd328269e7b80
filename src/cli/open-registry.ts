import type { ToolIndex } from '../core/index.js';
import { Scanner } from '../scanner/index.js';
import { loadConfig, repositoryOptions, wholeNumber, type GatewayConfig } from '../config/index.js';
import type { Flags } from './command.js';

/** The config a command runs with: file, environment, then its flags. */
export function configFromFlags(flags: Flags): GatewayConfig {
  return loadConfig({
    ...(typeof flags.config === 'string' ? { file: flags.config } : {}),
    overrides: {
      ...(typeof flags.repo === 'string' ? { repo: flags.repo } : {}),
      ...(typeof flags.ref === 'string' ? { ref: flags.ref } : {}),
      ...(typeof flags.token === 'string' ? { token: flags.token } : {}),
      // checked as HLDP_PORT is, before anything opens: Node's own RangeError came after the store was opened (review R, R6)
      ...(typeof flags.port === 'string' ? { port: wholeNumber(flags.port, '--port', 65535) } : {}),
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
