import { randomBytes } from 'node:crypto';
import { statSync, realpathSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { closeIdleConnectionsUnread } from '../http-edge/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { createGatekeeperApp } from './app.js';

/** Where and how a gatekeeper listens. */
export interface GatekeeperOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** default 0: any free port */
  port?: number;
  /** the folder every method stays inside; must exist */
  root: string;
  /** where the root was set, which a message about it names: `--root` (default), or a gateway's `workspace_root` */
  rootFrom?: '--root' | 'workspace_root';
  /** the bearer token; a random one is made when absent */
  token?: string;
  bodyLimitBytes?: number;
  logger?: Logger;
  /** the sandbox exec runs in (see `createSandbox`); without one, a PID namespace of its own only */
  sandbox?: Sandbox;
}

/** A running gatekeeper. */
export interface RunningGatekeeper {
  /** e.g. `http://127.0.0.1:39111` */
  url: string;
  token: string;
  /** the resolved root */
  root: string;
  /** stops listening, ends open connections (and the runs they wait for) */
  close(): Promise<void>;
}

function resolveRoot(root: string, from: '--root' | 'workspace_root'): string {
  // an embedded gatekeeper's root is the gateway's workspace: `hldp call` has no --root to pass (review R, R12)
  const [what, fix] = from === '--root' ? ['gatekeeper root', 'pass another --root'] : ['workspace', 'set workspace_root (or HLDP_WORKSPACE) to an existing folder'];
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new Error(`${what} '${root}' does not exist; create it or ${fix}`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`${what} '${root}' is not a folder; ${from === '--root' ? 'pass a folder as --root' : 'set workspace_root (or HLDP_WORKSPACE) to a folder'}`);
  return real;
}

/** Starts a gatekeeper `/exec` server; throws at start-up on a bad root, an empty token or a port in use. */
export async function startGatekeeper(options: GatekeeperOptions): Promise<RunningGatekeeper> {
  if (options.token === '') throw new Error('the gatekeeper token is empty; give a long random token or none to have one made');
  const root = resolveRoot(options.root, options.rootFrom ?? '--root');
  const token = options.token ?? randomBytes(32).toString('base64url');
  const app = createGatekeeperApp({ root, token, bodyLimitBytes: options.bodyLimitBytes, logger: options.logger, ...(options.sandbox ? { sandbox: options.sandbox } : {}) });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
    closeIdleConnectionsUnread(listening);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    token,
    root,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
