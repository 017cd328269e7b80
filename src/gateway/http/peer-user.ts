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
