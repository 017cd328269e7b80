import type { ToolIndex } from '../core/index.js';
import { Scanner } from '../scanner/index.js';
import { loadConfig, repositoryOptions, wholeNumber, type GatewayConfig } from '../config/index.js';
import { hashToken } from '../policy/index.js';
import type { Flags } from './command.js';
import { UsageError } from './usage-error.js';

/**
 * The config a command runs with: file, environment, then its flags. A command that authenticates no request and
 * runs no tool (reads receipts, scans, validates) passes `secrets: 'optional'`: a principal, gatekeeper, API, Forgejo
 * or MCP server whose secret is not in this shell is then left out instead of stopping it (review userV, V8;
 * userW, W9). Only `hldp serve` `delivers` the notify webhooks and needs their secrets (review userZ11, U11-1).
 */
export function configFromFlags(flags: Flags, secrets: 'required' | 'optional' = 'required', delivers = false): GatewayConfig {
  const config = loadConfig({
    delivers,
    ...(typeof flags.config === 'string' ? { file: flags.config } : {}),
    secrets,
    overrides: {
      ...(typeof flags.repo === 'string' ? { repo: flags.repo } : {}),
      ...(typeof flags.ref === 'string' ? { ref: flags.ref } : {}),
      ...(typeof flags.token === 'string' ? { token: flags.token } : {}),
      // checked as HLDP_PORT is, before anything opens: Node's own RangeError came after the store was opened (review R, R6)
      ...(typeof flags.port === 'string' ? { port: wholeNumber(flags.port, '--port', 65535) } : {}),
      ...(typeof flags.host === 'string' ? { host: flags.host } : {}),
    },
  });
  if (typeof flags.token === 'string') checkRepositoryToken(flags.token, config);
  return config;
}

/**
 * `--token` is the repository's token (an http(s) git remote's), as `HLDP_REPO_TOKEN`; `hldp tail --token` is a
 * principal's. A principal's token given here was silently ignored and the command ran as `local`, every role: a
 * script meant "as ci-bot" ran as admin, its receipts saying local (review userV, V5). So a token that is a
 * principal's, or one given for a repository that takes none, is refused, saying which variable says whom to act as.
 */
function checkRepositoryToken(token: string, config: GatewayConfig): void {
  const asPrincipal = 'to act as a principal, set HLDP_TOKEN to its token (the in-process CLI acts as local otherwise)';
  const digest = hashToken(token);
  const principal = config.principals.find((candidate) => candidate.tokenSha256 === digest);
  if (principal) {
    throw new UsageError(`--token is the repository's token (an http(s) git remote's, as HLDP_REPO_TOKEN), and this one is the token of principal '${principal.name}': ${asPrincipal}`);
  }
  if (!/^https?:\/\//i.test(config.repository.source)) {
    throw new UsageError(`--token is the token of an http(s) git repository (as HLDP_REPO_TOKEN), and ${config.repository.source} is a local one, which takes none; ${asPrincipal}`);
  }
}

/** Scans the repository the flags name once, and waits for the cache write; it authenticates no one (see `configFromFlags`). */
export async function scanFromFlags(flags: Flags): Promise<ToolIndex> {
  return scanOnce(configFromFlags(flags, 'optional'));
}

/**
 * `scanFromFlags`, and beside it what of a checkout read at HEAD the index lacks: each definition edited since and not
 * committed (`uncommittedDefinitions`; none for a remote, a plain folder or another ref), looked for while it scans.
 */
export async function scanWithUncommitted(flags: Flags): Promise<{ index: ToolIndex; uncommitted: string[] }> {
  const config = configFromFlags(flags, 'optional');
  const { uncommittedDefinitions } = await import('./uncommitted-definitions.js');
  const [index, uncommitted] = await Promise.all([scanOnce(config), uncommittedDefinitions(config.repository.source, config.repository.ref)]);
  return { index, uncommitted };
}

async function scanOnce(config: GatewayConfig): Promise<ToolIndex> {
  const scanner = new Scanner(repositoryOptions(config));
  const index = await scanner.scan();
  await scanner.flush();
  return index;
}
