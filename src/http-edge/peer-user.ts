import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { endianness } from 'node:os';

/** Who owns the other end: a uid; `unknown` where the tables cannot be read (not Linux); `none` when no live process does; `several`. */
export type PeerOwner = number | 'unknown' | 'none' | 'several';

const known = new WeakMap<Socket, PeerOwner>();

/**
 * The uid that owns the other end of a TCP connection made on this host (Linux: the kernel's socket tables in
 * /proc/net, the one live row whose local address and port are the client's and whose remote address and port are
 * ours). Read once per connection.
 *
 * The whole four-tuple decides, never the ports alone (review Q, Q1: a client at 127.0.0.2 bound to the server's own
 * port number matched the gateway's accepted socket, whose row ends with the same two ports, and was served as the
 * gateway's user), and only a socket a process still holds (inode not 0) counts: the kernel lists a closed socket
 * waiting out TIME_WAIT or FIN_WAIT2 as uid 0, root's, so a client that sent its request and closed at once was served
 * as the operator.
 */
export function peerUid(socket: Socket): PeerOwner {
  const seen = known.get(socket);
  if (seen !== undefined) return seen;
  const uid = lookUp(socket);
  known.set(socket, uid);
  return uid;
}

function lookUp(socket: Socket): PeerOwner {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined) return 'none';
  const client = endpoint(remoteAddress, remotePort);
  const server = endpoint(localAddress, localPort);
  if (client === undefined || server === undefined) return 'none';
  const owners = new Set<number>();
  let read = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'latin1');
    } catch {
      continue;
    }
    read = true;
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    for (const line of text.split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields.length <= 9 || !/^\d+$/.test(fields[7]!) || !/^[1-9]\d*$/.test(fields[9]!)) continue;
      if (rowEndpoint(fields[1]!) === client && rowEndpoint(fields[2]!) === server) owners.add(Number(fields[7]));
    }
  }
  if (!read) return 'unknown';
  if (owners.size > 1) return 'several';
  return owners.size === 1 ? owners.values().next().value! : 'none';
}

/** `address:port` in one spelling for both tables: an IPv4 address (also v4-mapped IPv6) as dotted decimal, IPv6 as 32 hex digits. */
function endpoint(address: string, port: number): string | undefined {
  const bare = address.replace(/%.*$/, '');
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(bare);
  if (v4) return `${v4.slice(1).map(Number).join('.')}:${port}`;
  const groups = expandIpv6(bare);
  return groups === undefined ? undefined : `${groups}:${port}`;
}

/** An IPv6 address as its 32 hex digits (lower case), or undefined when it is not one. */
function expandIpv6(address: string): string | undefined {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => group.padStart(4, '0')).join('');
}

/**
 * A /proc/net row's `ADDRESS:PORT` (the address as the kernel's 32-bit words, each printed in this host's byte order,
 * the port as 4 hex digits) in {@link endpoint}'s spelling.
 */
function rowEndpoint(field: string): string | undefined {
  const colon = field.indexOf(':');
  const hex = field.slice(0, colon);
  const port = Number.parseInt(field.slice(colon + 1), 16);
  if (colon < 0 || Number.isNaN(port) || (hex.length !== 8 && hex.length !== 32) || !/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
  const bytes = Buffer.from(hex, 'hex');
  if (endianness() === 'LE') for (let word = 0; word < bytes.length; word += 4) bytes.subarray(word, word + 4).reverse();
  const v4 = bytes.length === 4 ? bytes : bytes.subarray(0, 12).equals(V4_MAPPED) ? bytes.subarray(12) : undefined;
  return v4 ? `${[...v4].join('.')}:${port}` : `${bytes.toString('hex')}:${port}`;
}

const V4_MAPPED = Buffer.from('00000000000000000000ffff', 'hex');

/**
 * Why a connection that brings no credential is not the operator at this machine, or undefined when it may be
 * served as `local`: with no credential configured, `local` is the user the gateway runs as and root, never another
 * account of a shared machine (review P, P13: any user's curl to 127.0.0.1 ran shell-exec in the gateway user's
 * workspace, as that user) nor the uid a root gateway runs its tools as (`toolUid`, sandbox.run_as: review O). Where
 * the other end cannot be told (not Linux), the request is served as before.
 */
export function notTheOperator(socket: Socket, toolUid?: number): string | undefined {
  const peer = peerUid(socket);
  if (peer === 'unknown') return undefined;
  if (peer === 'none' || peer === 'several') {
    const who = peer === 'none' ? 'no process on this machine still holds the other end of this connection' : 'more than one process on this machine holds a connection with these two ends';
    return `${who}, so who made it cannot be told: with no credential configured, the gateway serves only the operator at this machine as 'local'; configure api_token or principals`;
  }
  if (toolUid !== undefined && peer === toolUid) {
    return `this connection comes from a process of uid ${peer}, whom this root gateway runs its tools as (sandbox.run_as): with no credential configured, the gateway serves only the operator at this machine as 'local', never its own tools; configure api_token or principals and give the tool a token`;
  }
  const own = process.getuid?.();
  if (own === undefined || peer === own || peer === 0) return undefined;
  return `this connection comes from uid ${peer}, another user of this machine: with no credential configured, the gateway serves only the user it runs as (uid ${own}) and root as 'local'; configure api_token or principals and give that user a token`;
}
