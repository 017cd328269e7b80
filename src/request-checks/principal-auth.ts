import type { Request, RequestHandler, Response } from 'express';
import type { Principal, Principals } from '../policy/index.js';
import { forwardedReason, forwardingHeader, notTheOperator } from '../http-edge/index.js';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * Admits a request as the principal its bearer token stands for (compared by hash, in constant time), and keeps
 * that principal in `response.locals`. With no credential configured at all, every request is `local`; with any,
 * a request without a known token gets 401.
 */
export function principalAuth(principals: Principals, toolUid?: ToolUid): RequestHandler {
  return (request, response, next) => {
    const principal = requestPrincipal(principals, request, toolUid);
    if (principal) {
      response.locals['principal'] = principal;
      next();
      return;
    }
    if (!principals.required) {
      response.status(401).json({ code: 'UNAUTHORIZED', error: strangerReason(request, toolUid) ?? 'not the operator at this machine' });
      return;
    }
    response
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ code: 'UNAUTHORIZED', error: "missing or wrong bearer token; send Authorization: Bearer <a principal's token> (principals in the config, or the gateway's api_token)" });
  };
}

/** The uid a root gateway's tools run as (`sandbox.run_as`), once the sandbox is probed; undefined otherwise. */
export type ToolUid = () => number | undefined;

/**
 * The principal a request's `Authorization` header stands for, if any (`local` when no credential is configured —
 * but only for the user the gateway runs as and root: never another account of the machine, nor a process of
 * `toolUid`, a root gateway's tool with network access sharing the host's loopback; see {@link notTheOperator}; nor a
 * request a proxy forwarded, whose process is the operator's but whose client may be anyone: review userZ4, F12).
 */
export function requestPrincipal(principals: Principals, request: Request, toolUid?: ToolUid): Principal | undefined {
  if (!principals.required) return strangerReason(request, toolUid) === undefined ? principals.anonymous() : undefined;
  const match = BEARER.exec(request.get('authorization') ?? '');
  return match ? principals.authenticate(match[1]!) : undefined;
}

/**
 * Why a request to a gateway without credentials is not the operator's: another user's process at the other end of the
 * connection, or a proxy's (a forwarding header); undefined for the operator's own.
 */
export function strangerReason(request: Request, toolUid?: ToolUid): string | undefined {
  const header = forwardingHeader(request);
  return header === undefined ? notTheOperator(request.socket, toolUid?.()) : forwardedReason(header);
}

/** The principal `principalAuth` admitted the request as. */
export function principalOf(response: Response): Principal {
  const principal = response.locals['principal'] as Principal | undefined;
  // a route mounted without principalAuth is a wiring bug, never a request to serve as nobody
  if (!principal) throw new Error('route served without principal authentication');
  return principal;
}
