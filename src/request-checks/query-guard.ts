import type { RequestHandler } from 'express';
import { JSON_RPC, routeOf, sendJsonRpcError, type DocumentedRoute } from '../http-edge/index.js';

/** What is wrong with a query for an operation: a parameter it does not take, or one given twice. */
export function queryProblem(query: Record<string, unknown>, route: string, allowed: readonly string[]): string | undefined {
  const unknown = Object.keys(query).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    const named = unknown.slice(0, 5).map((key) => `'${key.slice(0, 40)}'`).join(', ');
    return `unknown query parameter ${named} on ${route}; ${allowed.length > 0 ? `use ${allowed.join(', ')}` : 'it takes none'}`;
  }
  const repeated = Object.entries(query).find(([, value]) => typeof value !== 'string');
  return repeated ? `query parameter '${repeated[0]}' must be given once` : undefined;
}

// what probes and fetchers ask, which take no parameter and ignore a query: a load balancer's health check that adds a
// cache-buster (`/healthz?t=…`) saw the gateway as down once the guard refused it (review userU, F7)
const ANY_QUERY = new Set(['/healthz', '/v1/openapi.json']);
// the routes that speak JSON-RPC, whose refusals are JSON-RPC errors
const JSON_RPC_ROUTES = new Set(['/mcp']);

/**
 * The one check of every route's query string, read from the OpenAPI document: a parameter the route does not list, or
 * one given twice, is a 400 naming the ones it takes (review R, R17: some routes refused them, others ignored them).
 * What a value must be stays the route's to say; a path the document does not have (the console) is left alone, and so is the query of a probe (`/healthz`, `/v1/openapi.json`).
 */
export function queryGuard(routes: readonly DocumentedRoute[]): RequestHandler {
  // the routes each method serves, most literal first, listed once rather than filtered again for every request
  const byMethod = new Map<string, DocumentedRoute[]>();
  for (const route of routes) for (const method of route.methods.keys()) byMethod.set(method, [...(byMethod.get(method) ?? []), route]);
  return (request, response, next) => {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (method === 'GET' && ANY_QUERY.has(request.path)) return next();
    // the most literal route served with this method: `/v1/receipts/verify` before `/v1/receipts/{id}`
    const route = routeOf(byMethod.get(method) ?? [], request.path);
    const problem = route && queryProblem(request.query as Record<string, unknown>, `${method} ${route.route}`, route.methods.get(method)!);
    if (problem === undefined) return next();
    // a JSON-RPC client reads JSON-RPC errors only (review userU, F9)
    if (JSON_RPC_ROUTES.has(route!.route)) return sendJsonRpcError(response, 400, JSON_RPC.invalidRequest, `Invalid Request: ${problem}`);
    response.status(400).json({ code: 'INVALID_REQUEST', error: problem });
  };
}
