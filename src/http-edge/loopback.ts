import type { Request, RequestHandler } from 'express';
import { isLoopback } from '../core/index.js';

/**
 * For a server listening on loopback (often without a token): refuses requests whose Host header
 * names anything but this machine — or the one public address its operator configured (`listen.public_url`, what a
 * TLS proxy on this machine forwards with the Host it was asked for). A web page can rebind its own name to 127.0.0.1
 * (DNS rebinding); its requests then reach the server, but still carry the page's name in Host.
 */
export function loopbackHostGuard(publicUrl?: string): RequestHandler {
  const known = publicUrl === undefined ? undefined : new URL(publicUrl);
  return (request, response, next) => {
    const header = request.headers.host ?? '';
    if (isLoopback(header.replace(/:\d+$/, '')) || (known !== undefined && hostOf(header, known.protocol) === known.host)) {
      next();
      return;
    }
    const publicName = known ? `, or to its public address '${known.host}' (listen.public_url)` : '';
    response.status(403).json({
      code: 'FORBIDDEN_HOST',
      error: `this server listens on loopback and answers only requests to localhost, 127.0.0.1 or [::1]${publicName}, not to Host '${header.slice(0, 100)}'; a TLS proxy on this machine in front of it: set listen.public_url to the address people reach it at (with principals or an api_token configured), and let the proxy keep the Host`,
    });
  };
}

/** A Host header as a URL of `protocol` writes its host (lower case, the scheme's default port left out); undefined if it is none. */
function hostOf(header: string, protocol: string): string | undefined {
  // a name, an IPv4 or bracketed IPv6 address, a port: nothing a URL would decode or map first (%, user info, Unicode)
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(header)) return undefined;
  try {
    return new URL(`${protocol}//${header}`).host;
  } catch {
    return undefined;
  }
}

/**
 * The forwarding header a request carries (`Forwarded`, `X-Forwarded-For`, `X-Forwarded-Host`, `X-Real-IP`), if any:
 * a proxy put it there, so the process at the other end of the connection is the proxy, not the client. Never trusted
 * for who or where the client is — only to refuse serving such a request as the operator at this machine.
 */
export function forwardingHeader(request: Request): string | undefined {
  return FORWARDING_HEADERS.find((name) => request.headers[name] !== undefined);
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'] as const;

/** Why a request that came through a proxy is not served as `local` on a gateway without credentials. */
export function forwardedReason(header: string): string {
  return `this request came through a proxy (it carries ${header}), so whoever sent it is not known to be the operator at this machine; a gateway without credentials serves only the operator's own connections: configure principals or an api_token before putting a proxy in front`;
}
