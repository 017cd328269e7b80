import { listPlaceholders, PLACEHOLDER_PATTERN, refusedHttpHeader, wholePlaceholder, type HttpSpec } from '../core/index.js';
import { fillTemplate } from './argv-template.js';
import { hasValue, parameterText, type Params, ownValue } from './params.js';

/** The parts of an HTTP request built from a definition, or why it could not be built. */
export type BuiltRequest =
  | { ok: true; method: string; path: string; headers: Record<string, string>; body?: string }
  | { ok: false; code: 'INVALID_PARAMS' | 'EXECUTOR_MISCONFIGURED'; message: string };

type Step<T> = { ok: true; value: T } | { ok: false; code: 'INVALID_PARAMS' | 'EXECUTOR_MISCONFIGURED'; message: string };

// `{+p}` keeps `/` between segments but encodes each, and refuses `.` and `..` so that a path never climbs.
function expandReserved(name: string, value: unknown): Step<string> {
  const segments = parameterText(value).split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) {
    return { ok: false, code: 'INVALID_PARAMS', message: `parameter '${name}' may not contain '.' or '..' path segments` };
  }
  return { ok: true, value: segments.map((segment) => encodeURIComponent(segment)).join('/') };
}

/** The path template filled in: `{p}` percent-encoded whole (never `.` or `..`), `{+p}` encoded segment by segment. */
export function buildPath(template: string, params: Params): Step<string> {
  let problem: Step<string> | undefined;
  const path = template.replace(PLACEHOLDER_PATTERN, (_match, plus: string, name: string) => {
    const value = ownValue(params, name);
    if (!hasValue(value) || (typeof value === 'object' && value !== null)) {
      problem ??= { ok: false, code: 'INVALID_PARAMS', message: `the path '${template}' needs parameter '${name}' as a string or number` };
      return '';
    }
    if (plus !== '+') {
      const text = parameterText(value);
      // encodeURIComponent leaves '.' as it is, and the URL parser resolves a '.' or '..' segment: the path would climb
      if (text === '.' || text === '..') {
        problem ??= { ok: false, code: 'INVALID_PARAMS', message: `parameter '${name}' may not be '.' or '..': it would move the request out of the path '${template}'` };
        return '';
      }
      return encodeURIComponent(text);
    }
    const expanded = expandReserved(name, value);
    if (!expanded.ok) problem ??= expanded;
    return expanded.ok ? expanded.value : '';
  });
  return problem ?? { ok: true, value: path };
}

/** The query string (with its `?`) from the listed parameters; an object parameter adds each of its keys, a list repeats its key. */
export function buildQuery(names: readonly string[], params: Params): string {
  const query = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (!hasValue(value)) return;
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, parameterText(item));
  };
  for (const name of names) {
    const value = ownValue(params, name);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, item] of Object.entries(value)) add(key, item);
    } else add(name, value);
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

function buildBody(spec: HttpSpec['body'], params: Params): string | undefined {
  if (spec === undefined) return undefined;
  if (typeof spec === 'string') {
    const name = wholePlaceholder(spec);
    return name === undefined || ownValue(params, name) === undefined ? undefined : JSON.stringify(ownValue(params, name));
  }
  const body: Params = {};
  for (const name of spec) if (ownValue(params, name) !== undefined) body[name] = ownValue(params, name);
  return JSON.stringify(body);
}

function buildMethod(template: string | undefined, params: Params): Step<string> {
  const filled = fillTemplate(template ?? 'GET', params);
  const method = filled.ok ? filled.text.toUpperCase() : '';
  if (!/^[A-Z]+$/.test(method)) {
    return { ok: false, code: 'INVALID_PARAMS', message: `the HTTP method must be letters only, e.g. GET; got '${filled.ok ? filled.text : template}'` };
  }
  return { ok: true, value: method };
}

/** Builds method, path with query, headers and JSON body of an `hldp-api` call. */
export function buildHttpRequest(spec: HttpSpec, params: Params): BuiltRequest {
  const method = buildMethod(spec.method, params);
  if (!method.ok) return method;
  const path = buildPath(spec.path, params);
  if (!path.ok) return path;
  const headers = buildHeaders(spec.headers ?? {}, params);
  if (!headers.ok) return headers;
  const body = buildBody(spec.body, params);
  if (body !== undefined) headers.value['content-type'] ??= 'application/json';
  const built = { ok: true as const, method: method.value, path: path.value + buildQuery(spec.query ?? [], params), headers: headers.value };
  return body === undefined ? built : { ...built, body };
}

/**
 * The definition's headers filled in. `host` and the framing and hop-by-hop headers are refused here too, as the scan
 * refuses them (review Z4, F4: `host: "{site}"` sent the API's token to whatever virtual host a call named), and a value
 * with a control character is the caller's error, named by its parameter, before anything is sent (F4b).
 */
function buildHeaders(templates: Record<string, string>, params: Params): Step<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates)) {
    const refused = refusedHttpHeader(name);
    if (refused !== undefined) return { ok: false, code: 'EXECUTOR_MISCONFIGURED', message: `the tool's http.headers may not set '${name}': ${refused}; remove it from its TOOL.hdlp` };
    const filled = fillTemplate(template, params);
    if (!filled.ok) continue;
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(filled.text)) {
      const named = listPlaceholders(template).map((placeholder) => placeholder.name);
      const which = named.length > 0 ? `parameter ${named.map((item) => `'${item}'`).join(' or ')}` : 'its text';
      return { ok: false, code: 'INVALID_PARAMS', message: `header '${name}' may not hold a line break or other control character (from ${which}); nothing was sent` };
    }
    headers[name.toLowerCase()] = filled.text;
  }
  return { ok: true, value: headers };
}
