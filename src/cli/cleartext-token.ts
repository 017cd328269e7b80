import { isLoopback } from '../core/index.js';

/**
 * The warning owed when a principal's bearer token goes to `url` in clear: an `http://` address beyond this machine
 * (review Z15, I-2). Not a refusal: a gateway behind a TLS-terminating proxy on the same host, or reached over a
 * private link, is a deployment people choose; undefined when the token goes over https or to loopback, or there is none.
 */
export function cleartextTokenWarning(url: string, token: string | undefined): string | undefined {
  if (!token) return undefined;
  let where: URL;
  try {
    where = new URL(url);
  } catch {
    return undefined;
  }
  if (where.protocol !== 'http:' || isLoopback(where.hostname)) return undefined;
  return `your token is sent unencrypted to ${where.host} (an http:// URL): anyone on the way can read it and act as you; use https:// beyond this machine`;
}
