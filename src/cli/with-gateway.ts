import { principalTokenVariable, type GatewayConfig } from '../config/index.js';
import { API_TOKEN_PRINCIPAL, LOCAL_PRINCIPAL } from '../policy/index.js';
import { Gateway, openConfiguredStore } from '../gateway/service/index.js';
import type { Store } from '../store/index.js';
import type { CommandIo, Flags } from './command.js';
import { terminalSafe } from './terminal-safe.js';
import { configFromFlags } from './open-registry.js';
import { readStore, storeName, type ReadStore } from './read-store.js';
import { UsageError } from './usage-error.js';

/**
 * Opens the gateway for one command and always closes it (stopping the embedded gatekeeper, closing the store).
 * `secrets: 'optional'` leaves out a target whose secret this shell lacks (see `configFromFlags`). What the sandbox
 * did to the workspace (as root, a root-owned one given to `sandbox.run_as`) is said on `io.stderr`, as `hldp serve`
 * logs it: `hldp call` changed a folder's owner without a word (review userZ3, LOW 7). A command that decides or
 * reads what a gateway stored (`approvals`, `confirm`) passes `store: 'read'`: a SQLite store that does not exist is
 * said and read as an empty one, never created, and `work` is told the store's name and whether it was missing (see `readStore`).
 * A command that answers from the registry alone (`match`, `export` as `HLDP_TOKEN`'s principal) passes `store: 'none'`:
 * an empty store in memory, so that nothing is read from or written to the gateway's.
 */
export async function withGateway(
  flags: Flags,
  io: Pick<CommandIo, 'stderr'>,
  work: (gateway: Gateway, store: Pick<ReadStore, 'name' | 'missing'>) => Promise<number>,
  secrets: 'required' | 'optional' = 'required',
  store: 'read' | 'write' | 'none' = 'write',
): Promise<number> {
  const onWorkspaceNotice = (message: string): void => void io.stderr.write(`hldp: ${terminalSafe(message)}\n`);
  const configured = configFromFlags(flags, secrets);
  // a command that only answers from the registry (match, export) reads and writes no store: an empty one in memory
  const config = store === 'none' ? { ...configured, receiptsDb: ':memory:', store: { poolMax: configured.store.poolMax } } : configured;
  const read = store === 'read' ? readStore(config, io) : { name: storeName(config), missing: false };
  const opened: Store | undefined = 'config' in read && read.missing ? await openConfiguredStore(read.config) : undefined;
  let gateway: Gateway;
  try {
    gateway = await Gateway.open({ config, onWorkspaceNotice, ...(opened ? { store: opened } : {}) });
  } catch (error) {
    await opened?.close();
    throw error;
  }
  try {
    return await work(gateway, { name: read.name, missing: read.missing });
  } finally {
    await gateway.close();
  }
}

/**
 * Who the in-process CLI acts for: the principal whose token is in `HLDP_TOKEN`, or `local`, the operator at
 * this machine (who holds the config and the store anyway). A token no principal has stops the command.
 */
export function cliCaller(gateway: Gateway, env: NodeJS.ProcessEnv = process.env): string {
  const token = env.HLDP_TOKEN;
  if (token === undefined || token === '') return LOCAL_PRINCIPAL.name;
  const principal = gateway.principals.authenticate(token);
  if (!principal) throw new UsageError(unknownTokenMessage(gateway.config));
  return principal.name;
}

/**
 * Why HLDP_TOKEN names no one, and what to do. It used to say only "unset it to act as 'local'": an MCP client's
 * configuration that set the token but not the config file (a client starts `hldp mcp` with only the environment it
 * is given, so HLDP_CONFIG from a shell never reaches it) was told to drop the token, and so ran its agent as the
 * operator, with every role (review N, N26).
 */
function unknownTokenMessage(config: GatewayConfig): string {
  const named = config.principals.map((principal) => principal.name).filter((name) => name !== API_TOKEN_PRINCIPAL);
  const local = `Unset HLDP_TOKEN only if '${LOCAL_PRINCIPAL.name}', the operator at this machine with every role, is meant`;
  // api_token's principal comes from HLDP_API_TOKEN, not the file: "no config file, so no principals" was untrue for it (review userW, W4)
  const apiToken = config.principals.some((principal) => principal.name === API_TOKEN_PRINCIPAL);
  const noApiToken = apiToken ? '' : ` If it is the gateway's api_token (principal '${API_TOKEN_PRINCIPAL}'), set HLDP_API_TOKEN to it as well: this process has no api_token to match it against.`;
  // a principal whose token variable this shell lacks was left out (hldp approvals list/show): it may be the one meant
  const leftOut = config.principalsLeftOut?.map((principal) => principal.name) ?? [];
  if (named.length === 0 && !apiToken && leftOut.length === 0) {
    return `HLDP_TOKEN is set, but ${config.file ? `the config file ${config.file} configures` : 'no config file was given, so there are'} no principals to match it: principals come from the gateway's config file — pass --config FILE (in an MCP client's configuration, in the server's args: the client starts it with only the environment it is given, so HLDP_CONFIG set in a shell does not reach it).${noApiToken} ${local}`;
  }
  const unset = leftOut.length === 0 ? '' : ` Left out, their token not in this shell: ${leftOut.map((name) => `'${name}' (${principalTokenVariable(name)})`).join(', ')}; if HLDP_TOKEN is yours as one of them, set that variable to it as well.`;
  return `HLDP_TOKEN is not the token of any principal configured${config.file ? ` in ${config.file}` : ''} (${[...named, ...(apiToken ? ['api_token'] : [])].join(', ') || 'none with its token at hand'}): check the token.${unset}${noApiToken} ${local}`;
}

/**
 * Why `hldp mcp` may not act for the caller it was given, if it may not. Where principals are configured, a server
 * started without HLDP_TOKEN would be `local` (every role): an agent framework that forgot the variable ran its agent
 * as admin, past access rules, base lists and `sessions.deny` (review K, S7). The operator says `--as-local` when the
 * person at this machine is meant.
 */
export function mcpCallerProblem(config: GatewayConfig, asLocal: boolean, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const token = env.HLDP_TOKEN !== undefined && env.HLDP_TOKEN !== '';
  if (token && asLocal) return '--as-local and HLDP_TOKEN both say whom hldp mcp acts for; keep one';
  if (token || asLocal) return undefined;
  // api_token alone is one admin, no more than local: nothing would be widened
  const named = config.principals.map((principal) => principal.name).filter((name) => name !== API_TOKEN_PRINCIPAL);
  if (named.length === 0) return undefined;
  return (
    `principals are configured (${named.join(', ')}), and without HLDP_TOKEN hldp mcp would act as '${LOCAL_PRINCIPAL.name}', the operator at this machine, with every role. ` +
    "Set HLDP_TOKEN in the MCP client's environment for this server to the token of the principal its agent is, or pass --as-local if the operator is meant"
  );
}
