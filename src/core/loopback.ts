/**
 * Whether a host name or address only this machine can reach: `localhost`, `127.x.x.x`, `::1` (also
 * bracketed, as URLs and Host headers write it). A server listening there may go without a token, and
 * a token sent there in the clear crosses no network.
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name === '::1' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
