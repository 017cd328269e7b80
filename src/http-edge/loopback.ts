import type { RequestHandler } from 'express';
import { isLoopback } from '../core/index.js';

/**
 * For a server listening on loopback (often without a token): refuses requests whose Host header
 * names anything but this machine. A web page can rebind its own name to 127.0.0.1 (DNS rebinding);
 * its requests then reach the server, but still carry the page's name in Host.
 */
export function loopbackHostGuard(): RequestHandler {
  return (request, response, next) => {
    const header = request.headers.host ?? '';
    if (isLoopback(header.replace(/:\d+$/, ''))) {
      next();
      return;
    }
    response.status(403).json({
      code: 'FORBIDDEN_HOST',
      error: `this server listens on loopback and answers only requests to localhost, 127.0.0.1 or [::1], not to Host '${header.slice(0, 100)}'; to serve other names, listen on another address with an api_token`,
    });
  };
}
