import { LOCAL_PRINCIPAL } from '../policy/index.js';
import { Gateway } from '../gateway/service/index.js';
import type { Flags } from './command.js';
import { configFromFlags } from './open-registry.js';
import { UsageError } from './usage-error.js';

/** Opens the gateway for one command and always closes it (stopping the embedded gatekeeper, closing the store). */
export async function withGateway(flags: Flags, work: (gateway: Gateway) => Promise<number>): Promise<number> {
  const gateway = await Gateway.open({ config: configFromFlags(flags) });
  try {
    return await work(gateway);
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
  if (!principal) throw new UsageError("HLDP_TOKEN is not the token of a configured principal; unset it to act as 'local', the operator at this machine");
  return principal.name;
}
