import { nearWord, PLACEHOLDER_PATTERN, refusedHttpHeader } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/** The methods every HTTP server and API knows (RFC 9110 and PATCH), as `http.method` is advised to name them. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * An `http.method` or `http.path` the schema refuses, told with what the author most likely meant (review userY, Y2):
 * `items/{id}` is `/items/{id}`; `GET /items` puts the path in the method.
 */
export function withHttpFixes(value: Record<string, unknown>, problems: SchemaProblem[]): SchemaProblem[] {
  const http = value.http;
  if (typeof http !== 'object' || http === null) return problems;
  const { method, path, body, query } = http as { method?: unknown; path?: unknown; body?: unknown; query?: unknown };
  return problems.map((problem) => {
    if (problem.path.length !== 2 || problem.path[0] !== 'http' || problem.atKey) return problem;
    const hint = problem.path[1] === 'path' ? pathFix(typeof path === 'string' ? withPlaceholderFixes(path, declaredNames(value.params_schema)) : path) : problem.path[1] === 'method' ? methodFix(method) : problem.path[1] === 'body' ? bodyFix(body) : problem.path[1] === 'query' ? queryFix(query) : '';
    return hint ? { ...problem, message: `${problem.message}${hint}` } : problem;
  });
}

/**
 * A letters-only `http.method` the executor sends but few servers know, or written in lower case (sent upper-cased):
 * warnings at the field naming the method meant. A `{param}` is the call's to choose.
 */
export function httpMethodWarnings(value: Record<string, unknown>): SchemaProblem[] {
  const method = (value.http as { method?: unknown } | undefined)?.method;
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) return [];
  const upper = method.toUpperCase();
  if ((HTTP_METHODS as readonly string[]).includes(upper)) {
    if (upper === method) return [];
    return [{ path: ['http', 'method'], atKey: false, message: `'http.method' is '${method}': HTTP methods are written upper case, and it is sent as ${upper}; did you mean '${upper}'?` }];
  }
  const near = nearWord(upper, HTTP_METHODS);
  return [{
    path: ['http', 'method'],
    atKey: false,
    message: `'http.method' is '${method}', which is not one of ${HTTP_METHODS.join(', ')}${near ? `; did you mean '${near}'?` : '.'} It is sent as ${upper}: keep it only if this API has such a method (WebDAV's PROPFIND, say); a server without it answers 405 or 501 to every call`,
  }];
}

/**
 * `time/{cty}` with `{cty}` one letter off the parameter `city`: the placeholders a fix of the path would still get
 * wrong, each put right, so that the path's "did you mean" is the whole fix, not the typo again (review userZ9, U9-4).
 */
function withPlaceholderFixes(path: string, declared: readonly string[]): string {
  return path.replace(PLACEHOLDER_PATTERN, (whole, plus: string, name: string) => {
    if (declared.includes(name)) return whole;
    const near = nearWord(name, declared);
    return near === undefined ? whole : `{${plus}${near}}`;
  });
}

// the parameter names a params schema declares, as written (the shorthand, or a JSON Schema's properties)
function declaredNames(schema: unknown): string[] {
  if (!isMapping(schema)) return [];
  if (schema.type !== 'object') return Object.keys(schema);
  return isMapping(schema.properties) ? Object.keys(schema.properties) : [];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathFix(path: unknown): string {
  if (typeof path !== 'string' || path.trim() === '') return '';
  const trimmed = path.trim();
  // a whole URL: the base is the API's (configured under apis), the path is what follows it
  const url = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(trimmed);
  if (url) return `; the base URL is the API's (configured under apis in the gateway config): did you mean '${url[1] ?? '/'}'?`;
  if (trimmed.startsWith('{') && !trimmed.startsWith('{+')) return `; did you mean '/${trimmed}', or '{+${trimmed.slice(1)}' if the parameter holds the whole path?`;
  return `; did you mean '/${trimmed.replace(/^\.?\/*/, '')}'?`;
}

// `body: id`: a parameter's name where its placeholder, or a list of names, belongs
function bodyFix(body: unknown): string {
  if (typeof body !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(body.trim())) return '';
  const name = body.trim();
  return `; did you mean '{${name}}' (its value is the whole body) or [${name}] (a JSON object holding it)?`;
}

// `query: fields` (or `query: a, b`): the parameter names go in a list (userZ7, F13)
function queryFix(query: unknown): string {
  const names = typeof query === 'string' ? query.split(/[\s,]+/).filter((name) => name !== '') : [];
  if (names.length === 0 || !names.every((name) => /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name))) return '';
  return `; write the parameters sent in the query as a list: query: [${names.join(', ')}]`;
}

function methodFix(method: unknown): string {
  if (typeof method !== 'string') return '';
  // `GET /items/{id}`: the request line, method and path together
  const [first = '', ...rest] = method.trim().split(/\s+/);
  const upper = first.toUpperCase();
  const near = (HTTP_METHODS as readonly string[]).includes(upper) ? upper : /^[A-Za-z]+$/.test(first) ? nearWord(upper, HTTP_METHODS) : undefined;
  if (near === undefined) return '';
  const path = rest.join(' ');
  return path.startsWith('/') ? `; did you mean '${near}', with '${path}' in 'http.path'?` : `; did you mean '${near}'?`;
}

/** `http.headers` keys the executor refuses (`UNSAFE_HTTP_HEADER`): `host` and the framing and hop-by-hop headers (review Z4, F4). */
export function checkHttpHeaders(value: Record<string, unknown>): SchemaProblem[] {
  const headers = (value.http as { headers?: unknown } | undefined)?.headers;
  if (typeof headers !== 'object' || headers === null) return [];
  return Object.keys(headers).flatMap((name) => {
    const why = refusedHttpHeader(name);
    return why === undefined ? [] : [{ path: ['http', 'headers', name], atKey: true, message: `'http.headers' may not set '${name}': ${why}` }];
  });
}
