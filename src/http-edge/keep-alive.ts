import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long an idle keep-alive connection is promised to clients: Node's default, sent as `Keep-Alive: timeout=5`. */
export const KEEP_ALIVE_ADVERTISED_MS = 5_000;

/**
 * How much longer than promised an idle connection is actually kept. A client counts the promise from when it read
 * the last response, the server from when it wrote it: a client whose process lagged behind (a loaded host) reuses
 * the connection past the server's count, and found it closed under its request (undici's "other side closed").
 */
export const KEEP_ALIVE_GRACE_MS = 5_000;

/**
 * Closes an idle keep-alive connection only once nothing arrived on it: `KEEP_ALIVE_GRACE_MS` after the advertised
 * timeout, and only after the bytes already waiting were read. Node's own keep-alive timeout destroys the socket in
 * the timers phase, which runs before the loop reads what arrived: when the server's loop was held up (its own work,
 * a loaded host) past the timeout, a request sent well within it was reset unread (ECONNRESET, the call never made).
 * Needs `server.timeout` to be 0 (Node's default): the socket's timeout is then the keep-alive one alone.
 */
export function closeIdleConnectionsUnread(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_ADVERTISED_MS;
  // with a 'timeout' listener on the server, Node leaves the socket to it rather than destroying it at once
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    // setImmediate runs after the loop's poll phase: a request waiting in the socket has been read by then
    const closeIfIdle = (): void => {
      if (!socket.destroyed && socket.bytesRead === read) socket.destroy();
    };
    setTimeout(() => setImmediate(closeIfIdle), KEEP_ALIVE_GRACE_MS).unref();
  });
}
