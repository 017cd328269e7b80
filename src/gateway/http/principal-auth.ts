import type { Request, RequestHandler, Response } from 'express';
import type { Principal, Principals } from '../../policy/index.js';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * Admits a request as the principal its bearer token stands for (compared by hash, in constant time), and keeps
 * that principal in `response.locals`. With no credential configured at all, every request is `local`; with any,
 * a request without a known token gets 401.
 */
export function principalAuth(principals: Principals): RequestHandler {
  return (request, response, next) => {
    const principal = requestPrincipal(principals, request);
    if (principal) {
      response.locals['principal'] = principal;
      next();
      return;
    }
    response
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ code: 'UNAUTHORIZED', error: "missing or wrong bearer token; send Authorization: Bearer <a principal's token> (principals in the config, or the gateway's api_token)" });
  };
}

/** The principal a request's `Authorization` header stands for, if any (`local` when no credential is configured). */
export function requestPrincipal(principals: Principals, request: Request): Principal | undefined {
  if (!principals.required) return principals.anonymous();
  const match = BEARER.exec(request.get('authorization') ?? '');
  return match ? principals.authenticate(match[1]!) : undefined;
}

/** The principal `principalAuth` admitted the request as. */
export function principalOf(response: Response): Principal {
  const principal = response.locals['principal'] as Principal | undefined;
  // a route mounted without principalAuth is a wiring bug, never a request to serve as nobody
  if (!principal) throw new Error('route served without principal authentication');
  return principal;
}
