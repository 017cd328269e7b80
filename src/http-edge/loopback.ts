import type { RequestHandler } from 'express';

/** Whether an address only this machine can reach (a server listening there may go without a token). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * For a server listening on loopback (often without a token): refuses requests whose Host header
 * names anything but this machine. A web page can rebind its own name to 127.0.0.1 (DNS rebinding);
 * its requests then reach the server, but still carry the page's name in Host.
 */
export function loopbackHostGuard(): RequestHandler {
  return (request, response, next) => {
    const header = request.headers.host ?? '';
    const name = header.replace(/:\d+$/, '').toLowerCase();
    if (LOOPBACK_NAMES.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name)) {
      next();
      return;
    }
    response.status(403).json({
      code: 'FORBIDDEN_HOST',
      error: `this server listens on loopback and answers only requests to localhost, 127.0.0.1 or [::1], not to Host '${header.slice(0, 100)}'; to serve other names, listen on another address with an api_token`,
    });
  };
}
