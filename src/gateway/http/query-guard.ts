import type { RequestHandler } from 'express';

/** One documented operation: its path as a pattern, and the query parameters it takes. */
interface Operation {
  route: string;
  pattern: RegExp;
  /** literal segments: `/v1/receipts/verify` is tried before `/v1/receipts/{id}` */
  literals: number;
  parameters: readonly string[];
}

type Paths = Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;

/** Every operation of the OpenAPI document by method, most literal path first. */
function operationsOf(document: Record<string, unknown>): Map<string, Operation[]> {
  const byMethod = new Map<string, Operation[]>();
  for (const [route, operations] of Object.entries(document['paths'] as Paths)) {
    const segments = route.split('/').filter(Boolean);
    const source = segments.map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    // express routes without regard to case or a trailing slash: so is a route's query looked up
    const pattern = new RegExp(`^/${source}/?$`, 'i');
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push({ route, pattern, literals: segments.filter((segment) => !segment.startsWith('{')).length, parameters });
      byMethod.set(method.toUpperCase(), list);
    }
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.literals - a.literals);
  return byMethod;
}

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

/**
 * The one check of every route's query string, read from the OpenAPI document: a parameter the route does not list, or
 * one given twice, is a 400 naming the ones it takes (review R, R17: some routes refused them, others ignored them).
 * What a value must be stays the route's to say; a path the document does not have (the console) is left alone, and so is the query of a probe (`/healthz`, `/v1/openapi.json`).
 */
export function queryGuard(document: Record<string, unknown>): RequestHandler {
  const operations = operationsOf(document);
  return (request, response, next) => {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (method === 'GET' && ANY_QUERY.has(request.path)) return next();
    const operation = operations.get(method)?.find((candidate) => candidate.pattern.test(request.path));
    const problem = operation && queryProblem(request.query as Record<string, unknown>, `${method} ${operation.route}`, operation.parameters);
    if (problem === undefined) return next();
    response.status(400).json({ code: 'INVALID_REQUEST', error: problem });
  };
}
