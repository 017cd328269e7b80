import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';

const known = new WeakMap<Socket, number | undefined>();

/**
 * The uid that owns the other end of a TCP connection made on this host (Linux: the kernel's socket tables in
 * /proc/net, the row whose local port is the client's and whose remote port is ours); undefined where it cannot be
 * told (not Linux, the client already gone, another host). Read once per connection.
 */
export function peerUid(socket: Socket): number | undefined {
  if (known.has(socket)) return known.get(socket);
  const uid = lookUp(socket.remotePort, socket.localPort);
  known.set(socket, uid);
  return uid;
}

function lookUp(clientPort: number | undefined, serverPort: number | undefined): number | undefined {
  if (clientPort === undefined || serverPort === undefined) return undefined;
  const client = `:${hexPort(clientPort)}`;
  const server = `:${hexPort(serverPort)}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'latin1');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid …
    for (const line of text.split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 7 && fields[1]!.endsWith(client) && fields[2]!.endsWith(server) && /^\d+$/.test(fields[7]!)) return Number(fields[7]);
    }
  }
  return undefined;
}

const hexPort = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');

/**
 * Why a connection that brings no credential is not the operator at this machine, or undefined when it may be
 * served as `local`: with no credential configured, `local` is the user the gateway runs as and root, never another
 * account of a shared machine (review P, P13: any user's curl to 127.0.0.1 ran shell-exec in the gateway user's
 * workspace, as that user) nor the uid a root gateway runs its tools as (`toolUid`, sandbox.run_as: review O). Where
 * the other end cannot be told (not Linux), the request is served as before.
 */
export function notTheOperator(socket: Socket, toolUid?: number): string | undefined {
  const peer = peerUid(socket);
  if (peer === undefined) return undefined;
  if (toolUid !== undefined && peer === toolUid) {
    return `this connection comes from a process of uid ${peer}, whom this root gateway runs its tools as (sandbox.run_as): with no credential configured, the gateway serves only the operator at this machine as 'local', never its own tools; configure api_token or principals and give the tool a token`;
  }
  const own = process.getuid?.();
  if (own === undefined || peer === own || peer === 0) return undefined;
  return `this connection comes from uid ${peer}, another user of this machine: with no credential configured, the gateway serves only the user it runs as (uid ${own}) and root as 'local'; configure api_token or principals and give that user a token`;
}
