import { Gateway } from '../service/index.js';
import type { Flags } from './command.js';
import { configFromFlags } from './open-registry.js';

/** Opens the gateway for one command and always closes it (stopping the embedded gatekeeper, closing the store). */
export async function withGateway(flags: Flags, work: (gateway: Gateway) => Promise<number>): Promise<number> {
  const gateway = await Gateway.open({ config: configFromFlags(flags) });
  try {
    return await work(gateway);
  } finally {
    await gateway.close();
  }
}
