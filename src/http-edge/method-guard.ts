import type { RequestHandler } from 'express';
import { routeOf, type DocumentedRoute } from './documented-routes.js';

/** The `Allow` header of a documented route: its methods, with HEAD wherever GET is (express answers it). */
export function allowedMethods(route: DocumentedRoute): string {
  const methods = [...route.methods.keys()];
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods.join(', ');
}

/**
 * Mounted after every route, before the 404: a path the document has, asked with a method it does not serve, is a 405
 * with `Allow` (RFC 9110 §15.5.6), not "no route" — `PUT /v1/call` read as if the route did not exist (review userU, F5).
 */
export function methodGuard(routes: readonly DocumentedRoute[]): RequestHandler {
  return (request, response, next) => {
    const route = routeOf(routes, request.path);
    // a documented method that reached here was not answered by its route: that is the 404's to say, not a 405
    if (route === undefined || route.methods.has(request.method === 'HEAD' ? 'GET' : request.method)) return next();
    const allow = allowedMethods(route);
    response.set('Allow', allow);
    if (request.method === 'OPTIONS') return void response.status(204).end();
    response.status(405).json({ code: 'METHOD_NOT_ALLOWED', error: `${request.method} is not a method of ${route.route}; it takes ${allow} (see GET /v1/openapi.json)` });
  };
}
